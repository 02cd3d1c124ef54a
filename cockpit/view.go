package cockpit

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/teamctl/teamctl/state"
	teamview "github.com/teamctl/teamctl/team/view"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/teamctl/teamctl/internal/textsafe"
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
			state.StateRunning:         st().Foreground(lipgloss.Color("2")),
			state.StateIdle:            st().Foreground(lipgloss.Color("4")),
			state.StateStalled:         st().Foreground(lipgloss.Color("1")).Bold(true),
			state.StateWaitingApproval: st().Foreground(lipgloss.Color("3")).Bold(true),
			state.StateExited:          st().Faint(true),
			state.StateFailed:          st().Foreground(lipgloss.Color("1")),
			state.StateHeld:            st().Foreground(lipgloss.Color("5")).Bold(true),
			state.StateLimited:         st().Foreground(lipgloss.Color("3")),
		},
	}
}

func (s styles) render(st lipgloss.Style, text string) string {
	if !s.on || text == "" {
		return text
	}
	return st.Render(text)
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
			if teamview.WaitsForPerson(r.MemberStatus) {
				waiting++
			}
		}
		fmt.Fprintf(&b, " · %d members", len(m.rows))
		if waiting > 0 {
			b.WriteString(" · " + m.st.render(m.st.state[state.StateWaitingApproval], fmt.Sprintf("%d waiting for you", waiting)))
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

func (m *Model) statusLine() string {
	switch m.mode {
	case modeInput:
		what := "send to " + m.who(m.target) + ": "
		if m.inputFor == "deny" {
			what = "deny " + m.who(m.target) + "'s request, reason: "
		}
		return what + m.input.View()
	case modeConfirm:
		if m.confirmFor == "merge" {
			return m.mergeQuestion()
		}
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
		return strings.Join([]string{k("y", m.confirmFor), k("any other key", "cancel")}, "  ")
	}
	if r := m.selected(); r != nil {
		switch r.State {
		case state.StateStalled:
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
		case state.StateWaitingApproval:
			keys = append(keys, k("a", "approve"), k("d", "deny"))
		case state.StateHeld:
			keys = append(keys, k("R", "release"))
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
	end := []string{k("?", "help"), k("q", "quit")}
	if r := m.selected(); r != nil && m.hasWorktree(r.key()) {
		// Where they fit: ? must stay on screen (it lists them too).
		with := append(slices.Clone(keys), k("c", "diff"), k("m", "merge"))
		if ansi.StringWidth(strings.Join(append(with, end...), "  ")) <= m.width {
			keys = with
		}
	}
	return strings.Join(append(keys, end...), "  ")
}

func (m *Model) help() []string {
	// 22 lines: with the title and the footer, an 80×24 terminal holds it.
	return []string{
		"  ↑/↓ k/j   select a member (pgup/pgdown a page, g/G the first/last)",
		"  1-9       choose that option of a stalled member's Claude Code dialog (teamctl answer M N)",
		"  y / n     its dialog's plain Yes or No (only where one option plainly is); at a",
		"            prompt, y or n then Enter (teamctl answer M y)",
		"  enter     choose the dialog's selected option (❯); at a prompt, press Enter",
		"  a         approve the selected teammate's permission request (teamctl approve)",
		"  d         deny it, with an optional reason (teamctl deny --reason)",
		"  s         send the member a message (teamctl send)",
		"  t         attach to its pane; detach (" + m.detachKeys("") + ") to come back (teamctl attach)",
		"  r / R     restart it, once y confirms (teamctl restart) / let a held one go (resume-member)",
		"  c         its diff, in the pager; q there comes back (teamctl diff M)",
		"  m         merge its branch into its base, once y confirms (teamctl merge M)",
		"  tab       the next team that is up; all teams is one of the stops",
		"  v         all teams in one list, or the selected member's team alone",
		"  b         bell on/off: rings when someone starts waiting for you (now " + onOff(m.bell) + ")",
		"  ? / q     this help / quit",
		"",
		"  Whoever waits for you comes first: stalled at a prompt, or waiting-approval",
		"  (a teammate's permission request), in whichever team. ROLE spawned: a teammate",
		"  the lead spawned. STATE working/idle: Claude Code; a plain process is running.",
		"  CHANGES: files +added −deleted in its worktree, uncommitted too. ! conflicts.",
		"  Every action is the command's own and is recorded in the team's events.",
	}
}
