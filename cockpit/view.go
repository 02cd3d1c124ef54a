package cockpit

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
)

// styles are the view's colours; all plain without colour.
type styles struct {
	on                                bool
	title, rule, faint, sel, err, key lipgloss.Style
	state                             map[state.MemberState]lipgloss.Style
}

func newStyles(color bool) styles {
	st := lipgloss.NewStyle
	return styles{
		on:    color,
		title: st().Bold(true),
		rule:  st().Faint(true),
		faint: st().Faint(true),
		sel:   st().Reverse(true),
		err:   st().Foreground(lipgloss.Color("1")),
		key:   st().Bold(true),
		state: map[state.MemberState]lipgloss.Style{
			stateRunning: st().Foreground(lipgloss.Color("2")),
			stateIdle:    st().Foreground(lipgloss.Color("4")),
			stateStalled: st().Foreground(lipgloss.Color("1")).Bold(true),
			stateWaiting: st().Foreground(lipgloss.Color("3")).Bold(true),
			stateExited:  st().Faint(true),
			stateFailed:  st().Foreground(lipgloss.Color("1")),
		},
	}
}

func (s styles) render(st lipgloss.Style, text string) string {
	if !s.on || text == "" {
		return text
	}
	return st.Render(text)
}

// stateWord is how a member's state reads in the table: as status has it,
// but a running Claude Code is "working" (as against idle); a plain process
// is never idle, so it stays "running".
func stateWord(r Member) string {
	if r.State == stateRunning && r.Role != roleProcess {
		return "working"
	}
	return string(r.State)
}

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
// failed, then everyone else in the layout's order.
func sortRows(rs []row, teams []string) []row {
	rows := slices.Clone(rs)
	rank := func(r row) int {
		switch {
		case waitsForPerson(r.Member):
			return 0
		case r.State == stateFailed:
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
func waitsOn(r Member, full bool) string {
	switch r.State {
	case stateStalled:
		if r.Stall != nil {
			return textsafe.Visible(fmt.Sprintf("%q", r.Stall.Line))
		}
	case stateWaiting:
		if r.Request != nil {
			return textsafe.Visible(r.Request.Tool + ": " + requestTarget(r.Request.Tool, r.Request.Input, r.Request.Description))
		}
	case stateFailed:
		return textsafe.Visible(r.Reason)
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

// sections are the heights of the parts of the screen that grow.
type sections struct{ table, detail, feed int }

// layout divides the height: title, table header, the table, a rule, the
// detail, a rule, the events, the status line and the keys. A short terminal
// shows the table alone.
func (m *Model) layout() sections {
	rows := max(1, len(m.rows))
	if m.height < 14 {
		return sections{table: max(1, m.height-4)}
	}
	rest := m.height - 6
	t := min(rows, max(3, rest*2/5))
	left := rest - t
	f := max(2, min(8, left/3))
	return sections{table: t, detail: left - f, feed: f}
}

// View draws the screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	if m.mode == modeInput {
		if c := m.input.Cursor(); c != nil {
			v.Cursor = c
		}
	}
	return v
}

// render is the screen as text, each line cut to the width.
func (m *Model) render() string {
	w := max(20, m.width)
	var lines []string
	add := func(s string) { lines = append(lines, ansi.Truncate(s, w, "…")) }
	add(m.title())
	if m.mode == modeHelp {
		for _, l := range m.help() {
			add(l)
		}
		for len(lines) < m.height-1 {
			lines = append(lines, "")
		}
		add(m.footer())
		return strings.Join(lines[:max(1, min(len(lines), m.height))], "\n")
	}
	lay := m.layout()
	for _, l := range m.table(w, lay.table) {
		add(l)
	}
	if lay.detail > 0 {
		add(m.rule(m.detailTitle(), w))
		for _, l := range m.detail(lay.detail) {
			add(l)
		}
		add(m.rule("events", w))
		for _, l := range m.feed(lay.feed) {
			add(l)
		}
	}
	add(m.statusLine())
	add(m.footer())
	return strings.Join(lines, "\n")
}

func (m *Model) rule(title string, w int) string {
	head := "── " + title + " "
	return m.st.render(m.st.rule, head+strings.Repeat("─", max(0, w-ansi.StringWidth(head))))
}

func (m *Model) title() string {
	var b strings.Builder
	b.WriteString(m.st.render(m.st.title, "teamctl top"))
	if m.all {
		fmt.Fprintf(&b, " · all teams (%d up)", len(m.teams))
	} else {
		b.WriteString(" · team " + textsafe.Visible(m.team))
		if n := len(m.teams); n > 1 {
			fmt.Fprintf(&b, " (%d of %d up, tab: next)", slices.Index(m.teams, m.team)+1, n)
		}
	}
	if len(m.snaps) > 0 {
		waiting := 0
		for _, r := range m.rows {
			if waitsForPerson(r.Member) {
				waiting++
			}
		}
		fmt.Fprintf(&b, " · %d members", len(m.rows))
		if waiting > 0 {
			b.WriteString(" · " + m.st.render(m.st.state[stateWaiting], fmt.Sprintf("%d waiting for you", waiting)))
		}
	}
	for _, t := range m.followed {
		s := m.snaps[t]
		if s == nil {
			continue
		}
		team := ""
		if m.all {
			team = "team " + textsafe.Visible(t) + " "
		}
		switch {
		case s.StoppedAt != nil:
			b.WriteString(" · " + m.st.render(m.st.err, team+"DOWN since "+s.StoppedAt.Local().Format(time.DateTime)))
		case !s.Supervisor.Running && m.all:
			b.WriteString(" · " + m.st.render(m.st.err, "no supervisor for "+textsafe.Visible(t)+": stalls go unseen"))
		case !s.Supervisor.Running:
			b.WriteString(" · " + m.st.render(m.st.err, "no supervisor: stalls go unseen"))
		}
	}
	b.WriteString(" · bell " + onOff(m.bell))
	return b.String()
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
	wide := w >= 72 // a narrow terminal leaves out ROLE and RESTARTS
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
		line += " " + ansi.Truncate(waitsOn(r.Member, false), rest, "…")
		if r.key() == m.sel && m.st.on {
			line = m.st.sel.Render(ansi.Strip(line)) // one style for the whole selected row
		}
		out = append(out, line)
	}
	return out
}

func (m *Model) detailTitle() string {
	r := m.selected()
	if r == nil {
		return "detail"
	}
	parts := []string{m.who(r.key()), "pane " + textsafe.Visible(r.Pane)}
	if wt, ok := m.snaps[r.Team].Worktrees[r.Name]; ok {
		parts = append(parts, "branch "+textsafe.Visible(wt.Branch), "worktree "+textsafe.Visible(wt.Path))
	} else if r.Cwd != "" {
		parts = append(parts, "no worktree, in "+textsafe.Visible(r.Cwd))
	}
	return strings.Join(parts, " · ")
}

// detail is the selected member: what it waits on in full, the bottom of its
// pane (of one that ended, its last lines), its last events.
func (m *Model) detail(h int) []string {
	r := m.selected()
	if r == nil {
		return pad(nil, h)
	}
	var info []string
	switch {
	case r.State == stateWaiting && r.Request != nil:
		q := r.Request
		target := requestTarget(q.Tool, q.Input, q.Description)
		info = append(info, fmt.Sprintf("asks to run %s: %s  (a approve · d deny)", textsafe.Visible(q.Tool), textsafe.Visible(target)))
		if q.Description != "" && q.Description != target {
			info = append(info, "  "+textsafe.Visible(q.Description))
		}
	case r.State == stateStalled && r.Stall != nil:
		at := fmt.Sprintf("stalled at %s (%s)", textsafe.Visible(fmt.Sprintf("%q", r.Stall.Line)), textsafe.Visible(r.Stall.Pattern))
		d, ok := m.dialogOf(r)
		if !ok {
			info = append(info, at+"  (y/n answer · enter · t attach)")
			break
		}
		info = append(info, at+"  ("+strings.Join(dialogKeys(d), " · ")+" · t attach)")
		info = append(info, "  "+textsafe.Visible(d.Describe(optionWidth)))
	case r.State == stateFailed:
		info = append(info, "failed: "+textsafe.Visible(r.Reason))
	case r.State == stateIdle && r.Result != "":
		info = append(info, "said: "+textsafe.Visible(r.Result))
	}
	var mine []Event
	for i := len(m.events) - 1; i >= 0 && len(mine) < 3; i-- {
		if m.events[i].Member == r.Name && m.events[i].Team == r.Team {
			mine = append(mine, m.events[i])
		}
	}
	slices.Reverse(mine)
	nev := min(len(mine), max(0, (h-len(info))/3))
	mine = mine[len(mine)-nev:]
	info = info[:min(len(info), h)]
	out := slices.Clone(info)
	for _, e := range mine {
		out = append(out, m.eventLine(e, false))
	}
	// The bottom of the pane, at the bottom of the section, as on its screen.
	screenH := max(0, h-len(out))
	screen := m.screen.Lines
	if m.screen.Team != r.Team || m.screen.Pane != r.Pane {
		screen = nil
	}
	if r.State.Ended() && len(r.LastLines) > 0 {
		// A dead pane shows little (a cleared screen, a relaunch's new pane
		// not up yet, tmux's "Pane is dead"): what it printed last says why.
		screen = r.LastLines
	}
	for len(screen) > 0 && strings.TrimSpace(screen[len(screen)-1]) == "" {
		screen = screen[:len(screen)-1]
	}
	if len(screen) > screenH {
		screen = screen[len(screen)-screenH:]
	}
	out = pad(out, h-len(screen))
	for _, l := range screen {
		out = append(out, m.st.render(m.st.faint, "│ ")+textsafe.Visible(l))
	}
	return out
}

// dialogKeys are the keys that answer dialog d: its numbers, y and n where
// they name an option, enter for the selected one.
func dialogKeys(d Dialog) []string {
	keys := []string{fmt.Sprintf("1-%d choose", min(9, len(d.Options)))}
	if o, ok := d.Yes(); ok {
		keys = append(keys, "y "+textsafe.Visible(o.String()))
	}
	if o, ok := d.No(); ok {
		keys = append(keys, "n "+textsafe.Visible(o.String()))
	}
	return append(keys, "enter "+textsafe.Visible(d.Options[d.Selected].String()))
}

func pad(lines []string, h int) []string {
	for len(lines) < h {
		lines = append(lines, "")
	}
	return lines[:h]
}

// feed is the team's latest events, newest last.
func (m *Model) feed(h int) []string {
	evs := m.events
	if len(evs) > h {
		evs = evs[len(evs)-h:]
	}
	var out []string
	for _, e := range evs {
		out = append(out, m.eventLine(e, true))
	}
	return pad(out, h)
}

// eventLine is one event on one line, every value made visible.
func (m *Model) eventLine(e Event, member bool) string {
	var parts []string
	if e.Line != "" {
		parts = append(parts, fmt.Sprintf("%q", e.Line))
	}
	if e.Option != "" {
		parts = append(parts, fmt.Sprintf("chose %q,", e.Option))
	}
	if len(e.Keys) > 0 {
		parts = append(parts, strings.Join(e.Keys, " "))
	}
	if e.Tool != "" && !strings.HasPrefix(e.Detail, e.Tool) {
		parts = append(parts, e.Tool)
	}
	if e.ExitCode != nil {
		parts = append(parts, fmt.Sprintf("exit %d", *e.ExitCode))
	}
	if e.Signal != 0 {
		parts = append(parts, fmt.Sprintf("signal %d", e.Signal))
	}
	if e.Detail != "" {
		parts = append(parts, e.Detail)
	}
	who := ""
	if member {
		who = textsafe.Visible(e.Member)
		switch {
		case m.all && who != "":
			who = textsafe.Visible(e.Team) + "/" + who
		case m.all:
			who = textsafe.Visible(e.Team)
		case who == "":
			who = "-"
		}
		who += " "
	}
	return m.st.render(m.st.faint, e.Time.Local().Format(time.TimeOnly)) + " " + who +
		m.st.render(m.st.key, textsafe.Visible(string(e.Kind))) + " " + textsafe.Visible(strings.Join(parts, " "))
}

func (m *Model) statusLine() string {
	switch m.mode {
	case modeInput:
		what := "send to " + m.who(m.target) + ": "
		if m.inputFor == "deny" {
			what = "deny " + m.who(m.target) + "'s request, reason: "
		}
		return what + m.input.View()
	case modeConfirm:
		return "restart " + m.who(m.target) + "? y restarts it, any other key cancels"
	}
	for _, t := range m.followed {
		if err := m.errs[t]; err != nil {
			return m.st.render(m.st.err, "cannot look at team "+textsafe.Visible(t)+": "+textsafe.Visible(err.Error()))
		}
	}
	if m.statusErr {
		return m.st.render(m.st.err, textsafe.Visible(m.status))
	}
	return textsafe.Visible(m.status)
}

// footer is the keys that do something now, the selected member's first.
func (m *Model) footer() string {
	k := func(key, what string) string { return m.st.render(m.st.key, key) + " " + what }
	var keys []string
	switch m.mode {
	case modeHelp:
		return k("any key", "back")
	case modeInput:
		return strings.Join([]string{k("enter", m.inputFor), k("esc", "cancel")}, "  ")
	case modeConfirm:
		return strings.Join([]string{k("y", "restart"), k("any other key", "cancel")}, "  ")
	}
	if r := m.selected(); r != nil {
		switch r.State {
		case stateStalled:
			if d, ok := m.dialogOf(r); ok {
				keys = append(keys, k(fmt.Sprintf("1-%d", min(9, len(d.Options))), "choose"))
				if _, ok := d.Yes(); ok {
					keys = append(keys, k("y", "yes"))
				}
				if _, ok := d.No(); ok {
					keys = append(keys, k("n", "no"))
				}
				break
			}
			keys = append(keys, k("y/n", "answer"), k("enter", "Enter"))
		case stateWaiting:
			keys = append(keys, k("a", "approve"), k("d", "deny"))
		}
	}
	keys = append(keys, k("↑↓", "select"))
	several := m.all || len(m.teams) > 1
	switch { // early in the line: it is what shows the other teams' waiters
	case m.all:
		keys = append(keys, k("v", "one team"))
	case several:
		keys = append(keys, k("v", "all teams"))
	}
	keys = append(keys, k("t", "attach"), k("s", "send"), k("r", "restart"))
	if several {
		keys = append(keys, k("tab", "team"))
	}
	keys = append(keys, k("?", "help"), k("q", "quit"))
	return strings.Join(keys, "  ")
}

func (m *Model) help() []string {
	return []string{
		"",
		"  ↑/↓ k/j   select a member (pgup/pgdown a page, g/G the first/last)",
		"  1-9       choose that option of a stalled member's Claude Code dialog (teamctl answer M N)",
		"  y / n     its dialog's plain Yes or No (only where one option plainly is); at a",
		"            prompt, y or n then Enter (teamctl answer M y)",
		"  enter     choose the dialog's selected option (❯); at a prompt, press Enter",
		"  a         approve the selected teammate's permission request (teamctl approve)",
		"  d         deny it, with an optional reason (teamctl deny --reason)",
		"  s         send the member a message (teamctl send)",
		"  t         attach to its pane; detach (" + m.detachKeys("") + ") to come back (teamctl attach)",
		"  r         restart it, once you confirm with y (teamctl restart)",
		"  tab       the next team that is up; all teams is one of the stops",
		"  v         all teams in one list, or the selected member's team alone",
		"  b         bell on/off: rings when someone starts waiting for you (now " + onOff(m.bell) + ")",
		"  ?         this help",
		"  q         quit",
		"",
		"  Whoever waits for you comes first: stalled at a prompt, or waiting-approval",
		"  (a teammate's permission request), in whichever team. ROLE spawned: a teammate",
		"  the lead spawned. STATE working/idle: Claude Code; a plain process is running.",
		"  Every action is the command's own and is recorded in the team's events.",
	}
}
