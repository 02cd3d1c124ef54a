package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team"
)

// stopOptions are which member `teamctl stop` stops, and how long it waits.
type stopOptions struct {
	IO      *iostreams.IO
	Member  string
	Timeout time.Duration
	// Open opens the team that has the member.
	Open func(ctx context.Context, member string) (stopper, error)
}

// stopper is what stop needs of a team (a *team.Team).
type stopper interface {
	Stop(ctx context.Context, member string, grace time.Duration) (*team.StopResult, error)
}

// newStopCmd makes `teamctl stop`; runF, when not nil, is run in stopRun's
// place (tests of the flags).
func newStopCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *stopOptions) error) *cobra.Command {
	opts := &stopOptions{IO: ios, Open: func(ctx context.Context, member string) (stopper, error) {
		return g.openMember(ctx, member)
	}}
	cmd := &cobra.Command{
		Use:   "stop MEMBER",
		Short: "Stop one member, and keep it stopped until teamctl start",
		Long: `Stop one member of a running team, as down stops them all: it is held
first, so that the supervisor does not restart it (status shows it held,
"stopped by a person"); then a Claude Code teammate gets Claude Code's own
shutdown_request and up to 5 s to end by itself, and what still runs
gets SIGTERM, then SIGKILL after --timeout. Its pane stays, showing how it
ended. teamctl start brings it back, its conversation resumed.`,
		Example: `  teamctl stop web
  teamctl stop alice --team auth-fix && teamctl finish alice`,
	}
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 10*time.Second, "how long after SIGTERM before SIGKILL")
	check := func(cmd *cobra.Command) error {
		if opts.Timeout <= 0 {
			return usagef(cmd, "--timeout must be more than 0")
		}
		return nil
	}
	return oneMember(g, cmd, &opts.Member, opts, check, runF, stopRun)
}

func stopRun(ctx context.Context, opts *stopOptions) error {
	t, err := opts.Open(ctx, opts.Member)
	if err != nil {
		return err
	}
	r, err := t.Stop(ctx, opts.Member, opts.Timeout)
	if err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.Out, stopText(r))
	return nil
}

// stopText says how a member was stopped.
func stopText(r *team.StopResult) string {
	who := textsafe.Visible(r.Member)
	how := "ended on SIGTERM"
	switch {
	case r.WasEnded:
		how = "its program had ended already"
	case r.Approved:
		how = "it approved the shutdown request and ended"
	case r.Killed:
		how = "did not end on SIGTERM: killed"
	}
	return fmt.Sprintf("stopped %s (%s); held until teamctl start %s", who, how, who)
}
