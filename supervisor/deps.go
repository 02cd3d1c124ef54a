package supervisor

import (
	"context"
	"time"

	"github.com/teamctl/teamctl/tmux"
)

// The daemon reaches the world through these small interfaces, declared here
// where they are used, so that its decisions can be tested with a fake tmux
// and a fake clock (decisions_test.go) in milliseconds.

// tmuxServer is what the daemon asks of the team's tmux server.
type tmuxServer interface {
	ListPanes(ctx context.Context) ([]tmux.Pane, error)
	RunBatch(ctx context.Context, b *tmux.Batch) ([]string, error)
	Run(ctx context.Context, args ...string) (string, error)
	Type(ctx context.Context, pane, text string) error
	// ReplacePane relaunches a pane's member in a new pane in its place,
	// named for the member in the same batch.
	ReplacePane(ctx context.Context, old, dir string, env, argv []string, member string) (tmux.NewPane, error)
	// Control attaches a control client to the session target names.
	Control(ctx context.Context, target string) (controlClient, error)
	// Listening says whether the server still listens on its socket (tmux's
	// own "no server" may also mean "too busy to connect now").
	Listening() bool
}

// controlClient is a tmux control-mode client: the panes' output and the
// server's notifications, and commands answered in order.
type controlClient interface {
	Command(ctx context.Context, args ...string) ([]string, error)
	Notes() <-chan tmux.Notification
	Done() <-chan struct{}
	Err() error
	Close() error
}

// clock tells the time and runs functions later.
type clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) timer
}

// timer is a function waiting to run (time.Timer has these).
type timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// realServer is the team's real tmux server.
type realServer struct{ *tmux.Server }

func (s realServer) Control(ctx context.Context, target string) (controlClient, error) {
	c, err := s.Server.Control(ctx, target)
	if err != nil {
		return nil, err // a nil *tmux.Control must not become a non-nil interface
	}
	return c, nil
}

// realClock is the wall clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) timer {
	return time.AfterFunc(d, f)
}
