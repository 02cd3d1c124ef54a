package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor"
	"github.com/teamctl/teamctl/team"
)

// superviseOptions are which team `teamctl supervise` watches, and how.
type superviseOptions struct {
	IO      *iostreams.IO
	Team    string // --team ("": as team.Find decides)
	TmuxBin string
	ToFile  bool // --log-to-file: the team's supervisor.log, not stderr
	// Handover: --handover, started by up with its lock (state.Handover).
	Handover bool
	// Find is team.Find; Supervise runs the daemon (supervisor.Supervise).
	Find      func(ctx context.Context, flag string) (string, error)
	Supervise func(ctx context.Context, team string, o supervisor.SuperviseOptions) error
}

// newSuperviseCmd makes `teamctl supervise`; runF, when not nil, is run in
// superviseRun's place (tests of the flags).
func newSuperviseCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *superviseOptions) error) *cobra.Command {
	opts := newSuperviseOptions(ios, g)
	cmd := &cobra.Command{
		Use: "supervise",
		Example: `  teamctl supervise --team auth-fix
  TEAMCTL_DEBUG=1 teamctl supervise`,
		Short: "Watch the team's panes: stalls, idle members, exits and restarts (teamctl up starts it)",
		Long: `Run the team's supervisor in the foreground: it follows every pane's output
through one tmux control-mode client, reports a member waiting for a human
within the watchdog's quiet period, restarts members that die, and adopts the
teammates the lead spawns itself. One runs per team; teamctl up starts it in
the background (log: the team's supervisor.log); teamctl up --foreground
keeps it in the terminal.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Team = g.team
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return superviseRun(cmd.Context(), opts)
		},
	}
	// What `up` starts: the log goes to the team's supervisor.log, rotated.
	cmd.Flags().BoolVar(&opts.ToFile, "log-to-file", false, "log to the team's supervisor.log (rotated by size) instead of stderr")
	cmd.Flags().MarkHidden("log-to-file")
	// What `up` starts too: its files 3, 4 and 5 are up's (state.Handover).
	cmd.Flags().BoolVar(&opts.Handover, state.HandoverFlag[2:], false, "files 3, 4 and 5 are up's handover: the lock, its go, our ready")
	cmd.Flags().MarkHidden(state.HandoverFlag[2:])
	g.addTeamFlag(cmd, teamFlagUsage)
	return cmd
}

// newSuperviseOptions are supervise's options with the real team and
// daemon: for supervise, and up --foreground.
func newSuperviseOptions(ios *iostreams.IO, g *globals) *superviseOptions {
	return &superviseOptions{IO: ios, TmuxBin: g.tmuxBin, Supervise: supervisor.Supervise,
		Find: func(ctx context.Context, flag string) (string, error) { return team.Find(ctx, flag, g.tmuxBin) },
	}
}

func superviseRun(ctx context.Context, opts *superviseOptions) error {
	name, err := opts.Find(ctx, opts.Team)
	if err != nil {
		return err
	}
	o, closeLog, err := supervisorOptions(opts, name, os.Getenv)
	if err != nil {
		return err
	}
	defer closeLog()
	if opts.Handover {
		o.Handover = state.InheritedHandover()
	}
	err = opts.Supervise(ctx, name, o)
	if errors.Is(err, state.ErrSupervised) {
		fmt.Fprintf(opts.IO.ErrOut, "teamctl: %v; nothing to do\n", err)
		return nil
	}
	return err
}
