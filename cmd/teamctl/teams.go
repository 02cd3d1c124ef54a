package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team"
)

func newTeamsCmd(io *iostreams.IO, g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use: "teams",
		Example: `  teamctl teams
  teamctl teams --json`,
		Short: "List the teams teamctl knows, up or down",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ts, err := team.List(cmd.Context(), g.tmuxBin)
			if err != nil {
				return err
			}
			// A team that could not be looked at is a row with its error (and
			// the error on stderr); the exit code stays 0, as the listing
			// itself worked: `docker compose ls` does the same.
			if asJSON {
				return writeJSON(io, ts)
			}
			v := textsafe.Visible
			tw := tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TEAM\tUP\tRUNNING\tSUPERVISOR\tSOCKET\tLAYOUT")
			for _, t := range ts {
				if t.Error != "" {
					fmt.Fprintf(tw, "%s\terror\t-\t-\t-\t-\n", v(t.Team))
					continue
				}
				up, sup := "no", "-"
				switch {
				case t.Up && t.Supervisor.Running:
					up, sup = "yes", fmt.Sprintf("pid %d", t.Supervisor.PID)
				case t.Up:
					up, sup = "yes", "NOT running"
				}
				fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\t%s\n", v(t.Team), up, t.Running, t.Members, sup, v(t.Socket), v(t.Layout))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, t := range ts {
				switch {
				case t.Error != "":
					fmt.Fprintf(io.ErrOut, "teamctl: team %s: %s\n", v(t.Team), textsafe.Lines(t.Error))
				case t.Up && !t.Supervisor.Running:
					// As status says it: nothing watches, restarts or answers for this team.
					fmt.Fprintf(io.ErrOut, "teamctl: team %s is up without a supervisor: `teamctl supervise --team %s` or `teamctl up` starts it\n", v(t.Team), v(t.Team))
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
