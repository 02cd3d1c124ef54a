package main

import (
	"context"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/team"
)

// upOptions are what `teamctl up` brings up, and how. The flags' fields are
// lowercase as demo.go, which brings its team up as up does (upLayout),
// names them.
type upOptions struct {
	IO                   *iostreams.IO
	TmuxBin              string
	layout               string
	recreate, changeFile bool
	configWait           time.Duration
	quiet, foreground    bool
	fresh, resume, all   bool
	claude               string // TEAMCTL_CLAUDE
	trace                bool   // TEAMCTL_TRACE: where up's time goes, on stderr (bench/up -v)
	// Up is team.BringUp, UpAll team.UpAll; Supervise runs the team's
	// supervisor in this process (up --foreground: supervise's own run).
	Up        func(ctx context.Context, l *layouts.Layout, o team.BringUpOptions) (*team.BroughtUp, error)
	UpAll     func(ctx context.Context, o team.UpAllOptions) (*team.UpAllResult, error)
	Supervise func(ctx context.Context, name string) error
}

// newUpCmd makes `teamctl up`; runF, when not nil, is run in upRun's place
// (tests of the flags).
func newUpCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *upOptions) error) *cobra.Command {
	o := wireUp(&upOptions{}, ios, g)
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
Long waits are said: the lead's team config, which teammates need. It says,
folder by folder, which Claude Code members will stop at Claude Code's trust
dialog (a folder Claude Code does not trust yet), and prints a line per member
as it comes up, then a table. An exited member is relaunched in a new pane in
its place; one running in a pane its relaunch did not record (a relaunch cut
short) is taken as that pane, never started twice.

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
			case o.fresh && o.resume && !o.all:
				return usagef(cmd, "--fresh and --resume do not go together")
			case !o.all:
				file, err := layoutArg(cmd, ios, args, o.quiet)
				if err != nil {
					return err
				}
				o.layout = file
			}
			o.claude = os.Getenv("TEAMCTL_CLAUDE")
			o.trace = os.Getenv("TEAMCTL_TRACE") != ""
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return upRun(cmd.Context(), o)
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

// wireUp gives o the real team verbs and the supervisor of this process.
func wireUp(o *upOptions, ios *iostreams.IO, g *globals) *upOptions {
	o.IO, o.TmuxBin, o.Up, o.UpAll = ios, g.tmuxBin, team.BringUp, team.UpAll
	o.Supervise = func(ctx context.Context, name string) error {
		s := newSuperviseOptions(ios, g)
		s.Team = name
		return superviseRun(ctx, s)
	}
	return o
}

func upRun(ctx context.Context, o *upOptions) error {
	if o.all {
		return upAllRun(ctx, o)
	}
	l, err := layouts.Parse(o.layout)
	if err != nil {
		return err
	}
	return upOne(ctx, o, l)
}
