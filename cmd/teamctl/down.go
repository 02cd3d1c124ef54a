package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team"
)

// downOptions are what `teamctl down` acts on.
type downOptions struct {
	IO      *iostreams.IO
	Timeout time.Duration
	Now     bool
	// Open opens the team to stop, and says its name.
	Open func(ctx context.Context) (string, downer, error)
}

// downer is what down needs of a team (a *team.Team).
type downer interface {
	Down(ctx context.Context, o team.DownOptions) (*team.DownResult, error)
}

// newDownCmd makes `teamctl down`; runF, when not nil, is run in downRun's
// place (tests of the flags).
func newDownCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *downOptions) error) *cobra.Command {
	opts := &downOptions{IO: ios, Open: func(ctx context.Context) (string, downer, error) {
		t, err := g.openMember(ctx, "")
		if err != nil {
			return "", nil, err
		}
		return t.Name, t, nil
	}}
	cmd := &cobra.Command{
		Use: "down",
		Example: `  teamctl down
  teamctl down --team auth-fix --timeout 30s
  teamctl down --now                # no shutdown request: SIGTERM at once`,
		Short: "Stop the team: a shutdown request, SIGTERM, a grace period, SIGKILL, then its tmux server",
		Long: `Stop every member of the team and the team's tmux server. Each Claude Code
teammate is first sent Claude Code's own shutdown_request through its mailbox
and given up to half of --timeout (5s at most) to end by itself (--now skips
this); then SIGTERM to each pane's process group still running and SIGKILL to
what is still running after --timeout, the lead last (its SIGTERM comes once
the others have ended or been killed); members the lead spawned are stopped
too. Then the team's tmux server and its socket go, processes that left the
panes (found by the team's TMUX socket) are ended, and the team's state
records the stop. Worktrees and Claude Code's files are left alone.

It says when it waits for the teammates it asked, which of them approved the
request and ended by themselves ("team T is down: 4 stopped (a, b approved
the shutdown request)") and which got SIGTERM.

Once begun it finishes what it can: if the supervisor will not stop or the
panes cannot be listed, the server is still killed by its socket and the
processes carrying that socket are ended, and the errors are said after (exit
1). On a read-only or full state folder it stops the team all the same and
warns that it could not take its lock or record the stop (exit 0). With no
team up it says there is nothing to stop and exits 0, as docker compose down
does; so does down --team T of a team already down, leaving its record alone.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return downRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 10*time.Second, "grace period between SIGTERM and SIGKILL")
	cmd.Flags().BoolVar(&opts.Now, "now", false, "skip asking the teammates to shut down: SIGTERM at once")
	g.addTeamFlag(cmd, teamFlagUsage)
	return cmd
}

func downRun(ctx context.Context, opts *downOptions) error {
	name, t, err := opts.Open(ctx)
	if errors.Is(err, team.ErrNoTeamUp) {
		// As `docker compose down`: nothing up is nothing to do, not a failure.
		fmt.Fprintln(opts.IO.Out, "no team is up; nothing to stop")
		return nil
	}
	if err != nil {
		return err
	}
	res, err := t.Down(ctx, team.DownOptions{Timeout: opts.Timeout, Now: opts.Now, Progress: textsafe.Writer{W: opts.IO.ErrOut}})
	switch {
	case res != nil && res.AlreadyDown:
		fmt.Fprintf(opts.IO.Out, "team %s is already down (since %s); nothing to stop\n", name, res.StoppedAt.Local().Format(time.DateTime))
		return nil
	case res != nil:
		printDown(opts.IO, name, res, opts.Timeout, err != nil)
	}
	if err != nil {
		return fmt.Errorf("down %s: %w", name, err)
	}
	return nil
}
