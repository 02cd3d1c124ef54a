package cockpit

// The table of members: how a member's state, wait and role read, the rows'
// order, and the rows on screen.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/teamctl/teamctl/internal/textsafe"
)

// stateWord is how a member's state reads in the table: as status has it
// (a running Claude Code is "working", as against idle; a plain process is
// never idle, so it stays "running").
func stateWord(r Member) string { return string(r.State.Shown(r.Role)) }

// waitsForPerson: stalled at a prompt, or a permission request no rule answered.
func waitsForPerson(r Member) bool { return r.State == stateStalled || r.State == stateWaiting }

func waitSince(r Member) time.Time {
	switch {
	case r.Stall != nil:
		return r.Stall.Since
	case r.Request != nil:
		return r.Request.Since
	}
	return r.Since
}

// sortRows puts whoever waits for a person first, in whichever team (the
// longest waiting first); then, team by team in the order of teams, the
// failed and the held, then everyone else in the layout's order.
func sortRows(rs []row, teams []string) []row {
	rows := slices.Clone(rs)
	rank := func(r row) int {
		switch {
		case waitsForPerson(r.Member):
			return 0
		case r.State == stateFailed, r.State == stateHeld:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		ra, rb := rank(a), rank(b)
		switch {
		case ra == 0 && rb == 0:
			return waitSince(a.Member).Compare(waitSince(b.Member))
		case ra == 0 || rb == 0:
			return ra - rb
		}
		if d := slices.Index(teams, a.Team) - slices.Index(teams, b.Team); d != 0 {
			return d
		}
		return ra - rb
	})
	return rows
}

// waitsOn is what a member waits on, or what there is to say of its state:
// the stalled line, the permission request's tool and command or file, why it
// failed, its exit. Made visible: it comes from the members.
func waitsOn(r Member, full bool, now time.Time) string {
	switch r.State {
	case stateStalled:
		if r.Stall != nil {
			return textsafe.Visible(fmt.Sprintf("%q", r.Stall.Line))
		}
	case stateWaiting:
		if r.Request != nil {
			return textsafe.Visible(r.Request.Tool + ": " + requestTarget(r.Request.Tool, r.Request.Input, r.Request.Description))
		}
	case stateFailed, stateHeld:
		return textsafe.Visible(r.Reason)
	case stateLimited:
		if r.Limit != nil {
			return textsafe.Visible(r.Limit.ResetText(now))
		}
	case stateExited:
		if r.ExitCode != nil {
			return fmt.Sprintf("exit %d", *r.ExitCode)
		}
	case stateIdle:
		if full && r.Result != "" {
			return textsafe.Visible(r.Result)
		}
	}
	return ""
}

// requestTarget is the command, file, address or pattern a tool request is
// about, from its input (JSON, possibly cut short by the supervisor), else its
// description.
func requestTarget(tool, input, description string) string {
	keys := []string{"command", "file_path", "notebook_path", "path", "url", "pattern", "query"}
	var obj map[string]any
	if json.Unmarshal([]byte(input), &obj) == nil {
		for _, k := range keys {
			if v, ok := obj[k].(string); ok && v != "" {
				return v
			}
		}
	} else {
		// Cut short: the value runs to the end of what is left.
		for _, k := range keys {
			if _, rest, ok := strings.Cut(input, `"`+k+`":"`); ok {
				var v string
				if json.Unmarshal([]byte(`"`+strings.TrimSuffix(strings.TrimSuffix(rest, "…"), `"`)+`"`), &v) == nil {
					return v + "…"
				}
				return rest
			}
		}
	}
	if description != "" {
		return description
	}
	return input
}

// age is a compact duration: 42s, 12m, 3h, 2d.
func age(d time.Duration) string {
	switch {
	case d < 0:
		d = 0
		fallthrough
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}

// since is when the member entered its state, as far as anyone knows.
func since(r Member) time.Time {
	if t := waitSince(r); !t.IsZero() {
		return t
	}
	if r.State == stateRunning || r.State == stateIdle {
		return r.StartedAt
	}
	return time.Time{}
}

func role(r Member) string {
	if r.Origin == originLead {
		return "spawned" // a teammate the lead spawned itself
	}
	return string(r.Role)
}

// maxChangesWidth is the CHANGES column's widest: "120 +3400 −560".
const maxChangesWidth = 14

// maxCostWidth is the COST column's widest: "1.20M tok, no price".
const maxCostWidth = 19

// costCell is a member's COST: what it spent, "-" for a plain process.
func costCell(r Member) string {
	if r.Role == roleProcess {
		return "-"
	}
	return r.Usage.CostText()
}

// table is the header and the rows on screen; in the all view each row
// names its team first.
func (m *Model) table(w, h int) []string {
	nw, tw := 6, 0
	for _, r := range m.rows {
		nw = max(nw, ansi.StringWidth(textsafe.Visible(r.Name)))
		if m.all {
			tw = max(tw, 4, ansi.StringWidth(textsafe.Visible(r.Team)))
		}
	}
	nw, tw = min(nw, 20), min(tw, 12)
	cell := func(s string, n int) string {
		s = ansi.Truncate(s, n, "…")
		return s + strings.Repeat(" ", max(0, n-ansi.StringWidth(s)))
	}
	wide := w >= 72 // a narrow terminal leaves out ROLE, RESTARTS and CHANGES
	// CHANGES only where some member has a worktree of its own to count, as
	// wide as its widest cell: WAITS ON needs the room more.
	cw := 0
	for _, r := range m.rows {
		cw = max(cw, ansi.StringWidth(m.changeCell(&r)))
	}
	changes := wide && cw > 0
	cw = min(max(cw, len("CHANGES")), maxChangesWidth)
	// COST once some member has spent something (as the supervisor read it).
	pw := 0
	for _, r := range m.rows {
		if r.Usage != nil && r.Usage.Turns > 0 {
			pw = max(pw, len("COST"), ansi.StringWidth(costCell(r.Member)))
		}
	}
	costs := wide && pw > 0
	pw = min(pw, maxCostWidth)
	head := "  "
	if tw > 0 {
		head += cell("TEAM", tw) + " "
	}
	head += cell("MEMBER", nw) + " "
	if wide {
		head += cell("ROLE", 8) + " "
	}
	head += cell("STATE", 16) + " " + fmt.Sprintf("%5s", "FOR")
	if wide {
		head += fmt.Sprintf(" %8s", "RESTARTS")
	}
	if costs {
		head += " " + cell("COST", pw)
	}
	if changes {
		head += " " + cell("CHANGES", cw)
	}
	head += " WAITS ON"
	if len(m.rows) > h {
		head += fmt.Sprintf("  (%d-%d of %d)", m.top+1, min(len(m.rows), m.top+h), len(m.rows))
	}
	out := []string{m.st.render(m.st.faint, head)}
	if len(m.rows) == 0 {
		msg := "no members"
		switch {
		case m.all && len(m.teams) == 0:
			msg = "no team is up"
		case len(m.snaps) > 0:
		case len(m.errs) > 0:
			msg = ""
		case m.all:
			msg = "looking at the teams…"
		default:
			msg = "looking at the team…"
		}
		return append(out, "  "+msg)
	}
	now := m.o.Now()
	rest := w - (2 + nw + 1 + 16 + 1 + 5 + 1)
	if tw > 0 {
		rest -= tw + 1
	}
	if wide {
		rest -= 9 + 9
	}
	if changes {
		rest -= 1 + cw
	}
	if costs {
		rest -= 1 + pw
	}
	rest = max(10, rest)
	for i := m.top; i < len(m.rows) && i < m.top+h; i++ {
		r := m.rows[i]
		dur := "-"
		if t := since(r.Member); !t.IsZero() {
			dur = age(now.Sub(t))
		}
		marker := "  "
		if r.key() == m.sel {
			marker = "> "
		}
		if len(r.Conflicts) > 0 {
			marker = marker[:1] + "!" // the radar: its work would conflict with another's (the detail says whose)
		}
		line := marker
		if tw > 0 {
			line += cell(textsafe.Visible(r.Team), tw) + " "
		}
		line += cell(textsafe.Visible(r.Name), nw) + " "
		if wide {
			line += cell(textsafe.Visible(role(r.Member)), 8) + " "
		}
		line += m.st.render(m.st.state[r.State], cell(stateWord(r.Member), 16)) + " " + fmt.Sprintf("%5s", dur)
		if wide {
			line += fmt.Sprintf(" %8d", r.Restarts)
		}
		if costs {
			line += " " + cell(textsafe.Visible(costCell(r.Member)), pw)
		}
		if changes {
			line += " " + cell(m.changeCell(&r), cw)
		}
		line += " " + ansi.Truncate(waitsOn(r.Member, false, now), rest, "…")
		if r.key() == m.sel && m.st.on {
			line = m.st.sel.Render(ansi.Strip(line)) // one style for the whole selected row
		}
		out = append(out, line)
	}
	return out
}
