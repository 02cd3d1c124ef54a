package main

import (
	"errors"
	"fmt"
	goio "io"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/selfexe"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor"
	"github.com/teamctl/teamctl/team"
)

func newSuperviseCmd(io *iostreams.IO, g *globals) *cobra.Command {
	var toFile bool
	cmd := &cobra.Command{
		Use: "supervise",
		Example: `  teamctl supervise --team auth-fix
  TEAMCTL_DEBUG=1 teamctl supervise`,
		Short: "Watch the team's panes: stalls, idle members, exits and restarts (teamctl up starts it)",
		Long: `Run the team's supervisor in the foreground: it follows every pane's output
through one tmux control-mode client, reports a member waiting for a human
within the watchdog's quiet period, restarts members that die, and adopts the
teammates the lead spawns itself. One runs per team; teamctl up starts it in
the background (log: the team's supervisor.log).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := team.Find(cmd.Context(), g.team, g.tmuxBin)
			if err != nil {
				return err
			}
			return supervise(cmd, io, g, name, toFile)
		},
	}
	// What `up` starts: the log goes to the team's supervisor.log, rotated.
	cmd.Flags().BoolVar(&toFile, "log-to-file", false, "log to the team's supervisor.log (rotated by size) instead of stderr")
	cmd.Flags().MarkHidden("log-to-file")
	g.addTeamFlag(cmd, teamFlagUsage)
	return cmd
}

func supervise(cmd *cobra.Command, io *iostreams.IO, g *globals, name string, toFile bool) error {
	level := slog.LevelInfo
	if os.Getenv("TEAMCTL_DEBUG") != "" {
		level = slog.LevelDebug
	}
	var out goio.Writer = io.ErrOut
	if toFile {
		w, err := state.OpenLog(name)
		if err != nil {
			return err
		}
		defer w.Close()
		out = w
	}
	log := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: level}))
	// A restart relaunches a member as the layout plans it, with the programs
	// up found: the same TEAMCTL_CLAUDE (up's environment is this one), and
	// this teamctl for Claude Code's hooks.
	self, err := selfexe.Path()
	if err != nil {
		return err
	}
	o := supervisor.SuperviseOptions{TmuxBin: g.tmuxBin, Log: log, ClaudeOverride: os.Getenv("TEAMCTL_CLAUDE"), Teamctl: self}
	if v := os.Getenv("TEAMCTL_RESTART_BACKOFF"); v != "" {
		// The first restart's delay; tests make crash loops quick with it.
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("TEAMCTL_RESTART_BACKOFF=%q: want a positive duration such as 1s", v)
		}
		o.MinBackoff = d
	}
	err = supervisor.Supervise(cmd.Context(), name, o)
	if errors.Is(err, state.ErrSupervised) {
		fmt.Fprintf(io.ErrOut, "teamctl: %v; nothing to do\n", err)
		return nil
	}
	return err
}

// startSupervisor starts the team's supervisor in the background, from the
// teamctl binary self (selfexe.Path), unless one runs.
func startSupervisor(io *iostreams.IO, t *team.Team, quiet bool, self string) error {
	pid, started, err := t.StartSupervisor(self)
	if err != nil {
		return err
	}
	if !quiet && started {
		fmt.Fprintf(io.Out, "supervisor started (pid %d)\n", pid)
	} else if !quiet {
		fmt.Fprintf(io.Out, "supervisor already running (pid %d)\n", pid)
	}
	return nil
}
