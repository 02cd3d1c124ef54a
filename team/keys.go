package team

import (
	"context"
	"fmt"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// NotRecordedError is an answer whose keys were sent but which could not be
// recorded in the team's events (a read-only or full state folder). The
// answer happened: a caller reports it as sent and warns, and must not send
// it again.
type NotRecordedError struct{ Err error }

func (e *NotRecordedError) Error() string {
	return fmt.Sprintf("the keys were sent, but could not be recorded in the team's events: %v", e.Err)
}

func (e *NotRecordedError) Unwrap() error { return e.Err }

// answer sends keys (tmux key names such as y, Enter, Down, or text) to a
// member's pane and records it as an event. The keys go first and the record
// after, so the log never tells of an answer that was not sent; when only the
// record fails, the error is a *NotRecordedError. Any other error means the
// keys were not sent, so trying again is safe.
func answer(ctx context.Context, team, member string, keys []string, tmuxBin string) error {
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
	ev, err := state.OpenEventLog(team)
	if err != nil {
		return &NotRecordedError{err}
	}
	defer ev.Close()
	if err := ev.Append(state.Event{Kind: state.EventAnswer, Member: member, Pane: m.Pane, Keys: keys, Detail: "by a person (teamctl answer)"}); err != nil {
		return &NotRecordedError{err}
	}
	return nil
}
