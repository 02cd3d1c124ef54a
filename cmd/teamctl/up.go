package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/selfexe"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/team"
)

type upOptions struct {
	layout     string
	recreate   bool
	changeFile bool
	configWait time.Duration
	quiet      bool
	foreground bool
}

func newUpCmd(io *iostreams.IO, g *globals) *cobra.Command {
	o := &upOptions{}
	cmd := &cobra.Command{
		Use: "up LAYOUT",
		Example: `  teamctl up layout.yaml
  teamctl up layout.yaml --recreate     # restart members whose launch changed
  teamctl up other.yaml --layout-change # the team follows another layout file
  teamctl up layout.yaml -q --foreground`,
		Short: "Bring a team up from its layout file (again: start what is missing)",
		Long: `Bring the team described by LAYOUT up on its own tmux server (tmux -L teamctl-TEAM):
the lead first, then every teammate and process in its pane. Run again with the
same layout, it leaves running members alone and starts the missing ones; a member
whose launch changed is restarted only with --recreate. A team that is up from
another layout file (the same team: name in two files) is refused, naming both
files, unless --layout-change (or --recreate) says this file is now the team's.
Long waits are said: the lead's team config, which teammates need.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.layout = args[0]
			return runUp(cmd, io, g, o)
		},
	}
	cmd.Flags().BoolVar(&o.recreate, "recreate", false, "restart members whose launch changed in the layout")
	cmd.Flags().BoolVar(&o.changeFile, "layout-change", false, "let a team that is up from another layout file follow this one")
	cmd.Flags().DurationVar(&o.configWait, "config-wait", 5*time.Second, "how long the lead gets to write its team config before teamctl writes a minimal one")
	cmd.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "print nothing but errors")
	cmd.Flags().BoolVar(&o.foreground, "foreground", false, "run the team's supervisor in this terminal instead of in the background")
	return cmd
}

func runUp(cmd *cobra.Command, io *iostreams.IO, g *globals, o *upOptions) error {
	l, err := layouts.Parse(o.layout)
	if err != nil {
		return err
	}
	return upLayout(cmd, io, g, l, o, os.Getenv("TEAMCTL_CLAUDE"))
}

func upLayout(cmd *cobra.Command, io *iostreams.IO, g *globals, l *layouts.Layout, o *upOptions, claude string) error {
	cols, rows := io.TerminalSize()
	// The hooks and the supervisor outlive this process: never a go run binary.
	self, err := selfexe.Path()
	if err != nil {
		return fmt.Errorf("up %s: %w", l.Team, err)
	}
	opts := team.UpOptions{
		Teamctl: self,
		TmuxBin: g.tmuxBin, ClaudeOverride: claude, Recreate: o.recreate, LayoutChange: o.changeFile,
		ConfigWait: o.configWait, Width: cols, Height: rows - 1,
	}
	if !o.quiet {
		opts.Progress = io.Out
	}
	res, err := team.Up(cmd.Context(), l, opts)
	if err != nil {
		return fmt.Errorf("up %s: %w", l.Team, err)
	}
	t, err := team.Open(cmd.Context(), l.Team, g.tmuxBin)
	if err != nil {
		return err
	}
	if o.foreground {
		if !o.quiet {
			st, err := t.Status(cmd.Context())
			if err != nil {
				return err
			}
			printStatusTable(io, st)
			fmt.Fprintf(io.Out, "\nsupervising team %s in the foreground; Ctrl-C stops the supervisor (the team keeps running)\n", l.Team)
		}
		return supervise(cmd, io, g, l.Team, false)
	}
	if err := startSupervisor(io, t, o.quiet, self); err != nil {
		return err
	}
	if o.quiet {
		return nil
	}
	st, err := t.Status(cmd.Context())
	if err != nil {
		return err
	}
	fmt.Fprintf(io.Out, "\nteam %s is up: %d started, %d relaunched, %d already running (tmux -L %s)\n",
		l.Team, len(res.Started), len(res.Respawned), len(res.Kept), st.Socket)
	printStatusTable(io, st)
	fmt.Fprintf(io.Out, "\nteamctl attach %s --team %s   # step in (detach: prefix d)\n", l.Lead.Name, l.Team)
	return nil
}
