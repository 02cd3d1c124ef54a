package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/demo"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/selfexe"
	"github.com/teamctl/teamctl/team"
)

func newDemoCmd(io *iostreams.IO, g *globals) *cobra.Command {
	var noAttach bool
	cmd := &cobra.Command{
		Use: "demo",
		Example: `  teamctl demo
  teamctl demo --no-attach && teamctl status --team demo`,
		Short: "Bring up a small demo team of stand-in agents (no Claude Code needed) and attach to its lead",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// The demo's agents are this teamctl: a path of it that stays.
			self, err := selfexe.Path()
			if err != nil {
				return err
			}
			l, err := demo.Prepare(self)
			if err != nil {
				return err
			}
			if err := upLayout(cmd, io, g, l, &upOptions{configWait: 5 * time.Second}, ""); err != nil {
				return err
			}
			// What the demo's teammates wait for, and the keys of top that answer it.
			keys := "(y/n answers a question on screen, a/d approves or denies a permission request)"
			if noAttach || !io.InteractiveTTY() {
				fmt.Fprintf(io.Out, "\nNot attaching (no terminal). Watch and answer the whole team with: teamctl top --team %s %s\nStep in with: teamctl attach lead --team %s\nStop it with: teamctl down --team %s\n", l.Team, keys, l.Team, l.Team)
				return nil
			}
			fmt.Fprintf(io.Out, "\nAttaching to the lead; detach with the tmux prefix then d. Then watch and answer the whole team with: teamctl top --team %s %s\nStop the demo with: teamctl down --team %s\n", l.Team, keys, l.Team)
			t, err := team.Open(cmd.Context(), l.Team, g.tmuxBin)
			if err != nil {
				return err
			}
			return attach(cmd, io, t, l.Lead.Name)
		},
	}
	cmd.Flags().BoolVar(&noAttach, "no-attach", false, "bring the demo team up without attaching")
	return cmd
}
