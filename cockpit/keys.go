package cockpit

// The keys: what each does in each mode (the help lists them); the actions
// they start are in actions.go.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team/model"
	teamview "github.com/teamctl/teamctl/team/view"

	tea "charm.land/bubbletea/v2"
)

// key handles a key press in the current mode.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	switch m.mode {
	case modeHelp:
		m.mode = modeTable
		if k.String() == "q" {
			return tea.Quit
		}
		return nil
	case modeInput:
		return m.inputKey(k)
	case modeConfirm:
		m.mode = modeTable
		switch {
		case k.String() != "y":
			m.say(m.confirmFor+" cancelled", false)
			return nil
		case m.confirmFor == "merge":
			return m.merge(m.target)
		}
		return m.restart(m.target)
	}
	r := m.selected()
	switch k.String() {
	case "q", "ctrl+c":
		return tea.Quit
	case "?":
		m.mode = modeHelp
		return nil
	case "up", "k":
		return m.move(-1)
	case "down", "j":
		return m.move(1)
	case "pgup":
		return m.move(-max(1, m.layout().table-1))
	case "pgdown":
		return m.move(max(1, m.layout().table-1))
	case "home", "g":
		return m.move(-len(m.rows))
	case "end", "G":
		return m.move(len(m.rows))
	case "b":
		m.bell = !m.bell
		m.say("bell "+onOff(m.bell), false)
		return nil
	case "tab":
		return m.nextTeam()
	case "v":
		if !m.all {
			m.show(true, "")
			return m.relist() // teams may have come up since the last look
		}
		team := m.team
		switch {
		case r != nil:
			team = r.Team
		case len(m.teams) > 0 && !slices.Contains(m.teams, team):
			team = m.teams[0]
		}
		if team == "" {
			m.say("no team is up", true)
			return nil
		}
		m.show(false, team)
		return nil
	}
	if r == nil {
		m.say("no member selected", true)
		return nil
	}
	who, mk := m.who(r.key()), r.key()
	switch k.String() {
	case "y", "n":
		if r.State != state.StateStalled {
			m.say(fmt.Sprintf("%s is %s, not stalled at a prompt: y and n answer a stalled member", who, teamview.StateWord(r.MemberStatus)), true)
			return nil
		}
		return m.yesNo(r, k.String())
	case "1", "2", "3", "4", "5", "6", "7", "8", "9":
		if r.State != state.StateStalled {
			m.say(fmt.Sprintf("%s is %s, not stalled: %s chooses an option of a stalled member's dialog", who, teamview.StateWord(r.MemberStatus), k.String()), true)
			return nil
		}
		return m.choose(r, k.String())
	case "enter":
		if r.State != state.StateStalled {
			m.say(fmt.Sprintf("%s is %s, not stalled: enter answers a stalled member's dialog", who, teamview.StateWord(r.MemberStatus)), true)
			return nil
		}
		if d, ok := m.dialogOf(r); ok {
			o := d.Options[d.Selected]
			return m.answer(mk, model.Answer{Reply: strconv.Itoa(o.Index + 1), Expect: o.String()})
		}
		return m.answer(mk, model.Answer{Keys: []string{"Enter"}})
	case "a":
		if r.State != state.StateWaitingApproval {
			m.say(fmt.Sprintf("%s has no permission request waiting (it is %s)", who, teamview.StateWord(r.MemberStatus)), true)
			return nil
		}
		return m.approve(mk)
	case "d":
		if r.State != state.StateWaitingApproval {
			m.say(fmt.Sprintf("%s has no permission request waiting (it is %s)", who, teamview.StateWord(r.MemberStatus)), true)
			return nil
		}
		return m.ask("deny", mk, "optional reason")
	case "s":
		if r.Role == state.RoleProcess {
			m.say(fmt.Sprintf("%s is a plain process, not Claude Code: attach (t) to type into it", who), true)
			return nil
		}
		return m.ask("send", mk, "message")
	case "t":
		return m.attach(mk)
	case "r":
		if r.Origin == state.OriginLead {
			m.say(fmt.Sprintf("%s was spawned by the lead, which restarts its own teammates", who), true)
			return nil
		}
		m.mode, m.target, m.confirmFor = modeConfirm, mk, "restart"
		return nil
	case "R":
		if r.State != state.StateHeld {
			m.say(fmt.Sprintf("%s is %s, not held: R lets go a member its budget held", who, teamview.StateWord(r.MemberStatus)), true)
			return nil
		}
		return m.release(mk)
	case "c":
		return m.diff(mk)
	case "m":
		if !m.hasWorktree(mk) {
			m.say(fmt.Sprintf("%s has no worktree of its own: it works in the team's root, nothing to merge", who), true)
			return nil
		}
		m.mode, m.target, m.confirmFor = modeConfirm, mk, "merge"
		return nil
	}
	return nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// move moves the selection by d rows.
func (m *Model) move(d int) tea.Cmd {
	if len(m.rows) == 0 {
		return nil
	}
	i := max(0, min(len(m.rows)-1, m.selIndex()+d))
	m.sel, m.settled = m.rows[i].key(), true
	m.scroll()
	m.refocus()
	return nil
}

// ask opens the one-line input for send or deny.
func (m *Model) ask(what string, member memberKey, placeholder string) tea.Cmd {
	m.mode, m.inputFor, m.target = modeInput, what, member
	m.input.Reset()
	m.input.Placeholder = placeholder
	return m.input.Focus()
}

func (m *Model) inputKey(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "esc", "ctrl+c":
		m.mode = modeTable
		m.input.Blur()
		m.say(m.inputFor+" cancelled", false)
		return nil
	case "enter":
		m.mode = modeTable
		m.input.Blur()
		text := m.input.Value()
		if m.inputFor == "deny" {
			return m.deny(m.target, strings.TrimSpace(text))
		}
		if strings.TrimSpace(text) == "" {
			m.say("nothing sent: the message is empty", true)
			return nil
		}
		return m.send(m.target, text)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}

// nextTeam lists the teams that are up, then shows the next stop after this
// view: all teams, then each team, then all teams again.
func (m *Model) nextTeam() tea.Cmd {
	ctx := m.o.Ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, ActionTimeout)
		defer cancel()
		teams, err := m.o.Backend.UpTeams(ctx)
		if err != nil {
			return failMsg{fmt.Errorf("list the teams: %w", err)}
		}
		return switchMsg{teams}
	}
}
