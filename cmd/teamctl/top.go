package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/cockpit"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/team"
	"github.com/teamctl/teamctl/tmux"
)

func newTopCmd(io *iostreams.IO, g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use: "top",
		Example: `  teamctl top
  teamctl top --team demo`,
		Short: "One live screen of the team: every member, what it waits on, act with one key",
		Long: `One live screen of the team: every member with its state, for how long and
what it waits on (whoever waits for you first), the bottom of the selected
member's pane, its worktree, and the team's latest events. Act with one key:
y/n answer a stalled prompt, enter presses Enter, a/d approve or deny a
permission request, s sends a message, t attaches (detach to come back), r
restarts (after a y), tab follows the next team that is up, b turns the bell off, ? lists
them all, q quits. Each action is the command's own (answer, approve, deny,
send, attach, restart) and is recorded in the team's events as it is.

With several teams up and none named (--team, TEAMCTL_TEAM), it shows every
team's members in one list, with their team, whoever waits for you first in
whichever team; v shows the selected member's team alone, and all teams again.

It needs a terminal; from a script or a pipe use ` + "`teamctl status -w`" + `.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !io.InteractiveTTY() {
				return fmt.Errorf("teamctl top needs a terminal on its standard input and output; to watch a team from a script or a pipe, use `teamctl status -w`")
			}
			ctx := cmd.Context()
			name, err := team.Find(ctx, g.team, g.tmuxBin)
			var up []string
			if err != nil && g.team == "" && os.Getenv("TEAMCTL_TEAM") == "" {
				// Several teams up: all of them, in one list.
				if teams, lerr := (cockpit.Teamctl{TmuxBin: g.tmuxBin}).UpTeams(ctx); lerr == nil && len(teams) > 1 {
					up, err = teams, nil
				}
			}
			if err != nil {
				return err
			}
			if up == nil {
				t, err := team.Open(ctx, name, g.tmuxBin)
				if err == nil {
					_, err = t.Status(ctx)
				}
				if err != nil {
					return err // say it here, not inside a full screen
				}
			}
			return cockpit.Run(ctx, cockpit.RunOptions{Team: name, All: up != nil, Teams: up, TmuxBin: g.tmuxBin,
				In: io.In, Out: io.Out, Color: io.ColorOn(), Nested: tmux.Nested()})
		},
	}
	g.addTeamFlag(cmd, teamFlagUsage)
	return cmd
}
