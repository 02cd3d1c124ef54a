package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/table"
	"github.com/teamctl/teamctl/internal/textsafe"
)

func newTasksCmd(ios *iostreams.IO, g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use: "tasks",
		Example: `  teamctl tasks
  teamctl tasks --json --team auth-fix`,
		Short: "List the team's Claude Code tasks (tasks/<team>/*.json)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := g.open(cmd)
			if err != nil {
				return err
			}
			tasks, skipped, err := t.Tasks()
			if err != nil {
				return err
			}
			for _, sk := range skipped {
				fmt.Fprintf(ios.ErrOut, "teamctl: warning: left out: %s\n", textsafe.Lines(sk.Err.Error()))
			}
			if asJSON {
				if tasks == nil {
					tasks = []claudecode.Task{} // [], not null
				}
				return writeJSON(ios, tasks)
			}
			fmt.Fprint(ios.Out, renderTasks(tasks, ios.Width()))
			return nil
		},
	}
	addJSONFlag(cmd, &asJSON, "")
	g.addTeamFlag(cmd, teamFlagUsage)
	return cmd
}

// renderTasks is the tasks' table, SUBJECT cut to fit width (0: whole), or
// "no tasks" rather than a heading alone.
func renderTasks(tasks []claudecode.Task, width int) string {
	if len(tasks) == 0 {
		return "no tasks\n"
	}
	tb := table.New(table.Column{Title: "ID"}, table.Column{Title: "STATUS"}, table.Column{Title: "OWNER"},
		table.Column{Title: "SUBJECT", Fit: table.Cut})
	v := textsafe.Visible // task files are written by the team's agents
	for _, t := range tasks {
		tb.Add(table.Text(v(t.ID)), table.Text(v(t.Status)), table.Text(v(t.Owner)), table.Text(v(t.Subject)))
	}
	return tb.Render(width)
}
