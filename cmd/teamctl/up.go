package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/selfexe"
	"github.com/teamctl/teamctl/internal/textsafe"
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
	fresh      bool
	resume     bool
	all        bool
}

func newUpCmd(io *iostreams.IO, g *globals) *cobra.Command {
	o := &upOptions{}
	cmd := &cobra.Command{
		Use: "up [LAYOUT] | --all",
		Example: `  teamctl up layout.yaml
  teamctl up                            # ./teamctl.yaml (or .teamctl.yaml)
  teamctl up layout.yaml --recreate     # restart members whose launch changed
  teamctl up other.yaml --layout-change # the team follows another layout file
  teamctl up layout.yaml --fresh        # a team whose server was lost: start it anew
  teamctl up --all                      # after a reboot: every lost team back
  teamctl up layout.yaml -q --foreground`,
		Short: "Bring a team up from its layout file (again: start what is missing)",
		Long: `Bring the team described by LAYOUT up on its own tmux server (tmux -L teamctl-TEAM):
the lead first, then every teammate and process in its pane. Run again with the
same layout, it leaves running members alone and starts the missing ones; a member
whose launch changed is restarted only with --recreate. A team that is up from
another layout file (the same team: name in two files) is refused, naming both
files, unless --layout-change (or --recreate) says this file is now the team's.
Long waits are said: the lead's team config, which teammates need.

A team whose tmux server is gone although it was not brought down (a reboot, a
killed server: status says "down (lost)") is resumed: the lead in the same
Claude Code team with --resume, every Claude Code teammate with its own
conversation, plain processes as they were, worktrees as they are; a member
whose conversation Claude Code did not store starts afresh, and teammates the
lead had spawned are left to the lead. --fresh starts it anew instead (the old
conversations stay on record for clean); --resume resumes a team stopped with
down too. --all brings back every lost team, each from its own layout file,
as it was when the team was brought up: a file changed since, or that others
may write, is passed by (said, with the file) until you name it yourself.

Without LAYOUT, up takes the current folder's layout file: teamctl.yaml,
teamctl.yml, .teamctl.yaml or .teamctl.yml, the first there is, and says which.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case o.all && len(args) > 0:
				return usagef(cmd, "--all brings back every lost team from its own layout: give no LAYOUT with it")
			case o.all:
				return upAll(cmd, io, g, o)
			case o.fresh && o.resume:
				return usagef(cmd, "--fresh and --resume do not go together")
			}
			file, err := layoutArg(cmd, io, args, o.quiet)
			if err != nil {
				return err
			}
			o.layout = file
			return runUp(cmd, io, g, o)
		},
	}
	cmd.Flags().BoolVar(&o.fresh, "fresh", false, "start a lost team anew instead of resuming its conversations")
	cmd.Flags().BoolVar(&o.resume, "resume", false, "resume a team stopped with down too, not only a lost one")
	cmd.Flags().BoolVar(&o.all, "all", false, "bring back every team that is lost (state says up, server gone), each from its layout as it was at up")
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
		Fresh: o.fresh, Resume: o.resume,
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
	if len(res.Resumed)+len(res.Afresh)+len(res.Lost) > 0 {
		fmt.Fprintf(io.Out, "resumed: %s; started afresh: %s; lost (the lead's to spawn again): %s\n",
			listOrNone(res.Resumed), listOrNone(res.Afresh), listOrNone(res.Lost))
	}
	printStatusTable(io, st)
	fmt.Fprintf(io.Out, "\nteamctl attach %s --team %s   # step in (detach: prefix d)\n", l.Lead.Name, l.Team)
	return nil
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// upAll brings back every lost team (state says up, its server is gone), each
// from the layout file it was brought up from: one command after a reboot.
// One that fails is said and does not keep the others from coming back.
func upAll(cmd *cobra.Command, io *iostreams.IO, g *globals, o *upOptions) error {
	ts, err := team.List(cmd.Context(), g.tmuxBin)
	if err != nil {
		return err
	}
	var failed []string
	n := 0
	for _, t := range ts {
		if !t.Lost {
			continue
		}
		n++
		if !o.quiet {
			fmt.Fprintf(io.Out, "== %s (%s)\n", textsafe.Visible(t.Team), textsafe.Visible(t.Layout))
		}
		// Only the file the person named at up, as it was then: a layout
		// changed since, or open to others, waits for them to name it.
		l, err := team.ResumeLayout(t.Team)
		if errors.Is(err, team.ErrLayoutNotTrusted) {
			err = fmt.Errorf("%w; look at it, then `teamctl up %s` brings the team back", err, t.Layout)
		}
		if err == nil {
			err = upLayout(cmd, io, g, l, o, os.Getenv("TEAMCTL_CLAUDE"))
		}
		if err != nil {
			fmt.Fprintf(io.ErrOut, "teamctl: team %s: %s\n", textsafe.Visible(t.Team), textsafe.Lines(err.Error()))
			failed = append(failed, t.Team)
		}
	}
	switch {
	case n == 0 && !o.quiet:
		fmt.Fprintln(io.Out, "no team is lost; nothing to bring back")
	case len(failed) > 0:
		return fmt.Errorf("%d of %d lost teams could not be brought back: %s", len(failed), n, strings.Join(failed, ", "))
	}
	return nil
}
