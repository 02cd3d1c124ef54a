package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team"
)

func newLogsCmd(io *iostreams.IO, g *globals) *cobra.Command {
	var o team.LogsOptions
	cmd := &cobra.Command{
		Use: "logs MEMBER",
		Example: `  teamctl logs web
  teamctl logs web -f
  teamctl logs researcher -n 20 --team auth-fix`,
		Short: "Print what a member's pane printed: its last lines, and why it ended",
		Long: `Print the last lines of a member's pane history (-n, default 100): of its
pane while it is there (dead or running), else the last lines teamctl kept of
it when it ended. A member restarted since its last run ended shows that run's
last lines first, under "--- previous run (exit 3, ended TIME) ---".

With --follow (-f), keep printing the lines its pane prints, until Ctrl-C, its
program ends or its pane goes. A full-screen program (Claude Code) redraws its
screen rather than printing lines: then -f prints the lines that are new on
its screen, best effort.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Lines < 0 {
				return usagef(cmd, "-n %d: want a number of lines, 0 or more", o.Lines)
			}
			t, err := g.open(cmd)
			if err != nil {
				return err
			}
			// The pane's lines are plain text (no escape sequences asked
			// for); whatever else a program put in them is made visible.
			return t.Logs(cmd.Context(), args[0], o, func(line string) {
				fmt.Fprintln(io.Out, textsafe.Visible(line))
			})
		},
	}
	cmd.Flags().IntVarP(&o.Lines, "lines", "n", team.DefaultLogLines, "print the last N lines of each run")
	cmd.Flags().BoolVarP(&o.Follow, "follow", "f", false, "keep printing the lines the pane prints")
	g.addTeamFlag(cmd, teamFlagUsage)
	cmd.ValidArgsFunction = completeMembers(g)
	return cmd
}
