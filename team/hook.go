package team

import (
	"fmt"
	"strings"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
)

// HookCaller is where a Claude Code hook runs, as its environment says: the
// team and member teamctl gave its pane (TEAMCTL_TEAM, TEAMCTL_MEMBER), and
// the pane (TMUX_PANE, which tmux sets in every pane and Claude Code passes
// on to its hooks).
type HookCaller struct{ Team, Member, Pane string }

// Valid reports whether a hook of c can be recorded: names of a team's and a
// member's shape, and a tmux pane id. A hook outside a pane, or naming no
// member, records nothing.
func (c HookCaller) Valid() bool {
	return state.ValidTeamName(c.Team) && claudecode.ValidMemberName(c.Member) && paneID(c.Pane)
}

// RecordHook appends hook h, which c ran, to c's team's events for the
// supervisor, which takes it only for the member whose pane c's is. Only a
// team that exists gets the event: a stray TEAMCTL_TEAM must not make a
// state folder.
func RecordHook(c HookCaller, h claudecode.Hook) error {
	ev, err := state.OpenTeamEventLog(c.Team)
	if err != nil {
		return err
	}
	defer ev.Close()
	return ev.Append(state.Event{Kind: state.EventHook, Member: c.Member, Pane: c.Pane,
		Hook: textsafe.Short(h.Event, 100), Detail: textsafe.Short(h.Detail(), 1000)})
}

// paneID reports whether s is a tmux pane id: % and a number.
func paneID(s string) bool {
	if len(s) < 2 || len(s) > 11 || s[0] != '%' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// maxAnswer is the most of a member's answer typed into the lead.
const maxAnswer = 16 << 10

// DeliverAnswer types answer, the last answer of the turn that just ended of
// c's member (a Codex or Gemini member, its CLI's own hook telling), into
// the lead through the lead queue, when the lead is owed it: it sent the
// member text (state.OweAnswer) that is among prompts, what the turn
// answered (Codex's input-messages, Gemini's prompt). Once; only from the
// member's own pane (another's hook naming it delivers nothing); a turn
// that answered something else (its earlier work ending just as the lead
// typed) leaves it owed.
func DeliverAnswer(c HookCaller, prompts []string, answer string) error {
	st, err := state.Load(c.Team)
	if err != nil {
		return err
	}
	m, ok := st.Member(c.Member)
	if !ok || m.Agent == "" || m.Pane != c.Pane {
		return nil
	}
	answered := func(text string) bool {
		for _, p := range prompts {
			if text != "" && strings.Contains(oneLine(p), text) {
				return true
			}
		}
		return false
	}
	if _, owed, err := state.TakeOwedAnswer(c.Team, c.Member, answered); err != nil || !owed {
		return err
	}
	return state.QueueForLead(c.Team, AnswerText(c.Member, m.Agent, answer))
}

// AnswerText is how a member's answer reads, typed into the lead: who, which
// CLI, and the answer on one line, without control characters (the lead
// queue types text, not keys), at most maxAnswer bytes of it.
func AnswerText(member, agent, answer string) string {
	answer = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return ' '
		}
		return r
	}, answer)
	answer = strings.Join(strings.Fields(answer), " ")
	if len(answer) > maxAnswer {
		answer = strings.ToValidUTF8(answer[:maxAnswer], "") + " …(cut)"
	}
	if answer == "" {
		answer = "(no text)"
	}
	return fmt.Sprintf("[%s (%s) answers your teamctl send] %s", member, agent, answer)
}
