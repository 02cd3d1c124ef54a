package main

import (
	"fmt"
	"os"
	"time"

	"github.com/teamctl/teamctl/internal/table"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team"
)

// renderTeams is the teams' table as of now, LAYOUT shortened to fit width
// (0: whole) as status shortens CWD.
func renderTeams(ts []team.TeamSummary, now time.Time, width int) string {
	home, _ := os.UserHomeDir()
	tb := table.New(table.Column{Title: "TEAM"}, table.Column{Title: "UP"}, table.Column{Title: "RUNNING"}, table.Column{Title: "COST"},
		table.Column{Title: "SUPERVISOR"}, table.Column{Title: "SOCKET"}, table.Column{Title: "LAYOUT", Fit: table.Path(home)})
	v := textsafe.Visible
	for _, t := range ts {
		if t.Error != "" {
			tb.Add(table.Text(v(t.Team)), table.Text("error"), table.Text("-"), table.Text("-"), table.Text("-"), table.Text("-"), table.Text("-"))
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
		tb.Add(table.Text(v(t.Team)), table.Text(up), table.Text(fmt.Sprintf("%d/%d", t.Running, t.Members)), table.Text(v(t.Usage.CostText())),
			table.Text(sup), table.Text(v(t.Socket)), table.Text(v(t.Layout)))
	}
	return tb.Render(width)
}

// teamNote is what stderr says of a team below the table: why it could not
// be looked at, how to bring a lost one back, that nobody supervises it; ""
// for none.
func teamNote(t team.TeamSummary) string {
	v := textsafe.Visible
	switch {
	case t.Error != "":
		return fmt.Sprintf("team %s: %s", v(t.Team), textsafe.Lines(t.Error))
	case t.Lost && t.LayoutProblem != "":
		return fmt.Sprintf("team %s was not brought down but its tmux server is gone; %s: look at it, then `teamctl up %s` brings it back (`teamctl up --all` passes it by)", v(t.Team), textsafe.Lines(t.LayoutProblem), v(t.Layout))
	case t.Lost:
		return fmt.Sprintf("team %s was not brought down but its tmux server is gone: `teamctl up %s` (or `teamctl up --all`) brings it back, every conversation resumed", v(t.Team), v(t.Layout))
	case t.Up && !t.Supervisor.Running:
		// As status says it: nothing watches, restarts or answers for this team.
		return fmt.Sprintf("team %s is up without a supervisor: `teamctl supervise --team %s` or `teamctl up` starts it", v(t.Team), v(t.Team))
	}
	return ""
}
