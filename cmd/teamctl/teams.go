package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/supervisor"
)

func newTeamsCmd(io *iostreams.IO, g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "teams",
		Short: "List the teams teamctl knows, up or down",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ts, err := supervisor.ListTeams(cmd.Context(), g.tmuxBin)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(io, ts)
			}
			tw := tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TEAM\tUP\tRUNNING\tSOCKET\tLAYOUT")
			for _, t := range ts {
				up := "no"
				if t.Up {
					up = "yes"
				}
				fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\n", t.Team, up, t.Running, t.Members, t.Socket, t.Layout)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
