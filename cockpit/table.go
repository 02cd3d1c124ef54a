package cockpit

// The table of members: how a member's state, wait and role read, the rows'
// order, and the rows on screen.

import (
	"fmt"
	"strings"

	teamview "github.com/teamctl/teamctl/team/view"

	"github.com/charmbracelet/x/ansi"

	"github.com/teamctl/teamctl/internal/textsafe"
)

// maxChangesWidth is the CHANGES column's widest: "120 +3400 −560".
const maxChangesWidth = 14

// maxCostWidth is the COST column's widest: "1.20M tok, no price".
const maxCostWidth = 19

// table is the header and the rows on screen; in the all view each row
// names its team first.
func (m *Model) table(w, h int) []string {
	nw, tw := 6, 0
	for _, r := range m.rows {
		nw = max(nw, ansi.StringWidth(textsafe.Visible(teamview.Shown(r.MemberStatus))))
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
			pw = max(pw, len("COST"), ansi.StringWidth(teamview.Cost(r.MemberStatus)))
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
		dur := teamview.For(r.MemberStatus, now)
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
		line += cell(textsafe.Visible(teamview.Shown(r.MemberStatus)), nw) + " "
		if wide {
			line += cell(textsafe.Visible(teamview.Role(r.MemberStatus)), 8) + " "
		}
		line += m.st.render(m.st.state[r.State], cell(teamview.StateWord(r.MemberStatus), 16)) + " " + fmt.Sprintf("%5s", dur)
		if wide {
			line += fmt.Sprintf(" %8d", r.Restarts)
		}
		if costs {
			line += " " + cell(textsafe.Visible(teamview.Cost(r.MemberStatus)), pw)
		}
		if changes {
			line += " " + cell(m.changeCell(&r), cw)
		}
		line += " " + ansi.Truncate(teamview.WaitsOn(r.MemberStatus, false, now), rest, "…")
		if r.key() == m.sel && m.st.on {
			line = m.st.sel.Render(ansi.Strip(line)) // one style for the whole selected row
		}
		out = append(out, line)
	}
	return out
}
