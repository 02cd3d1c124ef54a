package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/table"
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
			if len(ts) == 0 {
				fmt.Fprintln(io.Out, "no teams up: `teamctl up LAYOUT` brings one up")
				return nil
			}
			fmt.Fprint(io.Out, renderTeams(ts, time.Now(), io.Width()))
			v := textsafe.Visible
			for _, t := range ts {
				switch {
				case t.Error != "":
					fmt.Fprintf(io.ErrOut, "teamctl: team %s: %s\n", v(t.Team), textsafe.Lines(t.Error))
				case t.Lost && t.LayoutProblem != "":
					fmt.Fprintf(io.ErrOut, "teamctl: team %s was not brought down but its tmux server is gone; %s: look at it, then `teamctl up %s` brings it back (`teamctl up --all` passes it by)\n", v(t.Team), textsafe.Lines(t.LayoutProblem), v(t.Layout))
				case t.Lost:
					fmt.Fprintf(io.ErrOut, "teamctl: team %s was not brought down but its tmux server is gone: `teamctl up %s` (or `teamctl up --all`) brings it back, every conversation resumed\n", v(t.Team), v(t.Layout))
				case t.Up && !t.Supervisor.Running:
					// As status says it: nothing watches, restarts or answers for this team.
					fmt.Fprintf(io.ErrOut, "teamctl: team %s is up without a supervisor: `teamctl supervise --team %s` or `teamctl up` starts it\n", v(t.Team), v(t.Team))
				}
			}
			return nil
		},
	}
	addJSONFlag(cmd, &asJSON, "")
	return cmd
}

// renderTeams is the teams' table as of now, LAYOUT shortened to fit width
// (0: whole) as status shortens CWD.
func renderTeams(ts []team.TeamSummary, now time.Time, width int) string {
	home, _ := os.UserHomeDir()
	tb := table.New(table.Column{Title: "TEAM"}, table.Column{Title: "UP"}, table.Column{Title: "RUNNING"},
		table.Column{Title: "SUPERVISOR"}, table.Column{Title: "SOCKET"}, table.Column{Title: "LAYOUT", Fit: table.Path(home)})
	v := textsafe.Visible
	for _, t := range ts {
		if t.Error != "" {
			tb.Add(table.Text(v(t.Team)), table.Text("error"), table.Text("-"), table.Text("-"), table.Text("-"), table.Text("-"))
			continue
		}
		up, sup := "no", "-"
		switch {
		case t.Lost:
			up = "down (lost" + lastSeen(t.LastSeen, now) + ")"
		case t.Up && t.Supervisor.Running:
			up, sup = "yes", fmt.Sprintf("pid %d", t.Supervisor.PID)
		case t.Up:
			up, sup = "yes", "NOT running"
		}
		tb.Add(table.Text(v(t.Team)), table.Text(up), table.Text(fmt.Sprintf("%d/%d", t.Running, t.Members)),
			table.Text(sup), table.Text(v(t.Socket)), table.Text(v(t.Layout)))
	}
	return tb.Render(width)
}
