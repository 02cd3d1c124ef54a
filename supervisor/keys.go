package supervisor

import (
	"context"
	"fmt"
	"strings"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// TypeInto types text into a pane as literal keys, then presses Enter as a key
// of its own (Claude Code's input needs it that way).
func TypeInto(ctx context.Context, srv *tmux.Server, pane, text string) error {
	text = strings.NewReplacer("\r", " ", "\n", " ").Replace(text)
	if _, err := srv.Run(ctx, "send-keys", "-t", pane, "-l", "--", text); err != nil {
		return err
	}
	_, err := srv.Run(ctx, "send-keys", "-t", pane, "Enter")
	return err
}

// Answer sends keys (tmux key names such as y, Enter, Down, or text) to a
// member's pane and records it as an event.
func Answer(ctx context.Context, team, member string, keys []string, tmuxBin string) error {
	st, err := loadRunning(team)
	if err != nil {
		return err
	}
	m, ok := st.Member(member)
	if !ok {
		return fmt.Errorf("team %s has no member %q", team, member)
	}
	srv := &tmux.Server{Socket: state.SocketName(team), Bin: tmuxBin}
	args := append([]string{"send-keys", "-t", m.Pane, "--"}, keys...)
	if _, err := srv.Run(ctx, args...); err != nil {
		return fmt.Errorf("answer %s: %w", member, err)
	}
	ev, err := OpenEventLog(team)
	if err != nil {
		return err
	}
	defer ev.Close()
	return ev.Append(Event{Kind: EventAnswer, Member: member, Pane: m.Pane, Keys: keys, Detail: "by a person (teamctl answer)"})
}
