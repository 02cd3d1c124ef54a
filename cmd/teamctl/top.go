package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/cockpit"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/team"
	"github.com/teamctl/teamctl/tmux"
)

// topOptions are which teams `teamctl top` shows, and where.
type topOptions struct {
	IO      *iostreams.IO
	TmuxBin string
	Nested  bool // inside another tmux (tmux.Nested)
	// Find is the team shown, or every team's members (team.FindOrAll).
	Find func(ctx context.Context) (name string, all []string, err error)
	Run  func(ctx context.Context, o cockpit.RunOptions) error // cockpit.Run
}

// newTopCmd makes `teamctl top`; runF, when not nil, is run in topRun's
// place (tests of the flags).
func newTopCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *topOptions) error) *cobra.Command {
	opts := &topOptions{IO: ios, TmuxBin: g.tmuxBin, Run: cockpit.Run,
		Find: func(ctx context.Context) (string, []string, error) { return team.FindOrAll(ctx, g.team, g.tmuxBin) }}
	cmd := &cobra.Command{
		Use: "top",
		Example: `  teamctl top
  teamctl top --team demo`,
		Short: "One live screen of the team: every member, what it waits on, act with one key",
		Long: `One live screen of the team: every member with its state, for how long and
what it waits on (whoever waits for you first), the bottom of the selected
member's pane, its worktree, what it changed there (CHANGES: files, +/−, as
teamctl diff --stat counts them; ! marks a member whose work conflicts with
another's), and the team's latest events. Act with one key: y/n answer a
stalled prompt, enter presses Enter, a/d approve or deny a permission
request, s sends a message, t attaches (detach to come back), c shows the
member's diff in the pager, m merges its branch into its base (after a y), r
restarts (after a y), tab follows the next team that is up, b turns the bell
off, ? lists them all, q quits. Each action is the command's own (answer,
approve, deny, send, attach, diff, merge, restart) and is recorded in the
team's events as it is.

With several teams up and none named (--team, TEAMCTL_TEAM), it shows every
team's members in one list, with their team, whoever waits for you first in
whichever team; v shows the selected member's team alone, and all teams again.

It needs a terminal; from a script or a pipe use ` + "`teamctl status -w`" + `.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Nested = tmux.Nested()
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return topRun(cmd.Context(), opts)
		},
	}
	g.addTeamFlag(cmd, teamFlagUsage)
	return cmd
}

func topRun(ctx context.Context, opts *topOptions) error {
	if !opts.IO.InteractiveTTY() {
		return fmt.Errorf("teamctl top needs a terminal on its standard input and output; to watch a team from a script or a pipe, use `teamctl status -w`")
	}
	name, all, err := opts.Find(ctx)
	if err != nil {
		return err // said here, not inside a full screen
	}
	return opts.Run(ctx, cockpit.RunOptions{Team: name, All: all != nil, Teams: all,
		Backend: topBackend{team.Actions{TmuxBin: opts.TmuxBin}},
		In:      opts.IO.In, Out: opts.IO.Out, Color: opts.IO.ColorOn(), Nested: opts.Nested})
}
