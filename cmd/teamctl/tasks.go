package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
)

// tasksOptions are how `teamctl tasks` lists the team's tasks.
type tasksOptions struct {
	IO   *iostreams.IO
	JSON bool
	// Open opens the team acted on.
	Open func(ctx context.Context) (tasker, error)
}

// tasker is what tasks needs of a team (a *team.Team).
type tasker interface {
	Tasks() ([]claudecode.Task, []claudecode.Skipped, error)
}

// newTasksCmd makes `teamctl tasks`; runF, when not nil, is run in
// tasksRun's place (tests of the flags).
func newTasksCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *tasksOptions) error) *cobra.Command {
	opts := &tasksOptions{IO: ios, Open: func(ctx context.Context) (tasker, error) { return g.openMember(ctx, "") }}
	cmd := &cobra.Command{
		Use: "tasks",
		Example: `  teamctl tasks
  teamctl tasks --json --team auth-fix`,
		Short: "List the team's Claude Code tasks (tasks/<team>/*.json)",
		Long: `List the team's Claude Code tasks (tasks/<team>/*.json); new tasks and status
changes are task events. With none it says "no tasks" (--json: []). A task
file it does not read (over 1 MiB, a symlink, not a plain file; files past the
first 10000) is left out with a warning on stderr naming it and why.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return tasksRun(cmd.Context(), opts)
		},
	}
	addJSONFlag(cmd, &opts.JSON, "")
	g.addTeamFlag(cmd, teamFlagUsage)
	return cmd
}

func tasksRun(ctx context.Context, opts *tasksOptions) error {
	t, err := opts.Open(ctx)
	if err != nil {
		return err
	}
	tasks, skipped, err := t.Tasks()
	if err != nil {
		return err
	}
	for _, sk := range skipped {
		fmt.Fprintf(opts.IO.ErrOut, "teamctl: warning: left out: %s\n", textsafe.Lines(sk.Err.Error()))
	}
	if opts.JSON {
		if tasks == nil {
			tasks = []claudecode.Task{} // [], not null
		}
		return writeJSON(opts.IO, tasks)
	}
	fmt.Fprint(opts.IO.Out, renderTasks(tasks, opts.IO.Width()))
	return nil
}
