package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
)

// startOptions are which member `teamctl start` brings back.
type startOptions struct {
	IO     *iostreams.IO
	Member string
	// Open opens the team that has the member.
	Open func(ctx context.Context, member string) (starter, error)
}

// starter is what start needs of a team (a *team.Team).
type starter interface {
	Start(ctx context.Context, member string) (int, error)
}

// newStartCmd makes `teamctl start`; runF, when not nil, is run in
// startRun's place (tests of the flags).
func newStartCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *startOptions) error) *cobra.Command {
	opts := &startOptions{IO: ios, Open: func(ctx context.Context, member string) (starter, error) {
		return g.openMember(ctx, member)
	}}
	cmd := &cobra.Command{
		Use:   "start MEMBER",
		Short: "Bring back a member teamctl stop stopped",
		Long: `Bring back a member that teamctl stop stopped: its hold is let go and it is
started again in its pane's place, as the layout plans it, its Claude Code
conversation resumed (as teamctl restart and the supervisor's restarts do).
A member that runs, or that was not stopped by teamctl stop, is refused
(teamctl restart relaunches one that exited).`,
		Example: `  teamctl start web
  teamctl start alice --team auth-fix`,
	}
	return oneMember(g, cmd, &opts.Member, opts, nil, runF, startRun)
}

func startRun(ctx context.Context, opts *startOptions) error {
	t, err := opts.Open(ctx, opts.Member)
	if err != nil {
		return err
	}
	pid, err := t.Start(ctx, opts.Member)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "started %s again (pid %d)\n", textsafe.Visible(opts.Member), pid)
	return nil
}
