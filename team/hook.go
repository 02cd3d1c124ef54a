package team

import (
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
