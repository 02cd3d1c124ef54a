package main

import (
	"encoding/json"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
)

// newHookCmd is what Claude Code's hooks call (teamctl passes them in
// --settings): it reads the hook's JSON on stdin, appends an event for the
// supervisor, and exits 0 at once whatever happens — it must never hold up or
// fail Claude Code. The event names the member (TEAMCTL_MEMBER, a name of
// member shape) and the pane the hook runs in (TMUX_PANE, which tmux sets in
// every pane and Claude Code passes on to its hooks); the supervisor takes it
// only for the member whose pane that is. A hook outside a pane, or naming no
// member, records nothing.
func newHookCmd(ios *iostreams.IO) *cobra.Command {
	return &cobra.Command{
		Use:     "hook",
		Example: `  echo '{"hook_event_name":"Stop"}' | TEAMCTL_TEAM=auth-fix TEAMCTL_MEMBER=lead TMUX_PANE=%0 teamctl hook`,
		Short:   "Receive a Claude Code hook (called by Claude Code, not by people)",
		Hidden:  true,
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			team, member, pane := os.Getenv("TEAMCTL_TEAM"), os.Getenv("TEAMCTL_MEMBER"), os.Getenv("TMUX_PANE")
			if !state.ValidTeamName(team) || !claudecode.ValidMemberName(member) || !paneID(pane) {
				return nil
			}
			in := make(chan []byte, 1)
			go func() { b, _ := io.ReadAll(io.LimitReader(ios.In, 1<<20)); in <- b }()
			var data []byte
			select {
			case data = <-in:
			case <-time.After(30 * time.Second):
				// Claude Code closes the hook's stdin once it wrote the JSON, so
				// this guards only against a caller that never does; a short
				// guard dropped hooks on a loaded machine.
				return nil
			}
			var h struct {
				Event   string `json:"hook_event_name"`
				Type    string `json:"notification_type"`
				Message string `json:"message"`
				Session string `json:"session_id"`
			}
			json.Unmarshal(data, &h)
			if h.Event == "" {
				return nil
			}
			detail := strings.TrimSpace(strings.Join([]string{h.Event, h.Type, h.Message}, " "))
			// Only a team that exists gets the event: a stray TEAMCTL_TEAM must
			// not make a state folder.
			if ev, err := state.OpenTeamEventLog(team); err == nil {
				ev.Append(state.Event{Kind: state.EventHook, Member: member, Pane: pane, Hook: textsafe.Short(h.Event, 100), Detail: textsafe.Short(detail, 1000)})
				ev.Close()
			}
			return nil
		},
	}
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
