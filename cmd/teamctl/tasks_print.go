package main

import (
	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/table"
	"github.com/teamctl/teamctl/internal/textsafe"
)

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
