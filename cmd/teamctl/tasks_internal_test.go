package main

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/teamctl/teamctl/claudecode"
)

// TestNewCmdTasks: argv becomes the options (--json, --team), and nothing
// is done but the run function.
func TestNewCmdTasks(t *testing.T) {
	var got *tasksOptions
	g := &globals{}
	ios, _, _ := bufIO("")
	cmd := newTasksCmd(ios, g, func(_ context.Context, o *tasksOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"--json", "--team", "auth-fix"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || !got.JSON || g.team != "auth-fix" {
		t.Fatalf("options %+v, team %q", got, g.team)
	}
	got = nil
	cmd.SetArgs([]string{"extra"})
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	if err := cmd.Execute(); err == nil || got != nil {
		t.Errorf("tasks with an argument: %v, run %v", err, got != nil)
	}
}

// fakeTasker is a team with tasks, some task files left out.
type fakeTasker struct {
	tasks   []claudecode.Task
	skipped []claudecode.Skipped
	err     error
}

func (f *fakeTasker) Tasks() ([]claudecode.Task, []claudecode.Skipped, error) {
	return f.tasks, f.skipped, f.err
}

// TestTasksRun: the team's tasks as a table or JSON ([] for none), a task
// file left out said on stderr; an error is the team's.
func TestTasksRun(t *testing.T) {
	skipped := []claudecode.Skipped{{Err: errors.New("9.json: too large")}}
	tasks := []claudecode.Task{{ID: "1", Status: "pending", Owner: "mate", Subject: "Fix the\x1b[2J bug"}}
	for _, c := range []struct {
		name     string
		json     bool
		team     *fakeTasker
		out, err string
		errOut   string
	}{
		{name: "the table", team: &fakeTasker{tasks: tasks, skipped: skipped},
			out:    "ID  STATUS   OWNER  SUBJECT\n1   pending  mate   Fix the\\x1b[2J bug\n",
			errOut: "teamctl: warning: left out: 9.json: too large\n"},
		{name: "none", team: &fakeTasker{}, out: "no tasks\n"},
		{name: "none as JSON", json: true, team: &fakeTasker{}, out: "[]\n"},
		{name: "JSON", json: true, team: &fakeTasker{tasks: tasks[:1]}, out: "[\n  {\n    \"id\": \"1\",\n    \"subject\": \"Fix the\\u001b[2J bug\",\n    \"status\": \"pending\",\n    \"owner\": \"mate\",\n    \"raw\": null\n  }\n]\n"},
		{name: "the team's error", team: &fakeTasker{err: errors.New("no state")}, err: "no state"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ios, out, errOut := bufIO("")
			err := tasksRun(context.Background(), &tasksOptions{IO: ios, JSON: c.json,
				Open: func(context.Context) (tasker, error) { return c.team, nil }})
			if c.err != "" && (err == nil || err.Error() != c.err) || c.err == "" && err != nil {
				t.Fatalf("error %v, want %q", err, c.err)
			}
			if out.String() != c.out || errOut.String() != c.errOut {
				t.Errorf("printed %q and on stderr %q; want %q and %q", out.String(), errOut.String(), c.out, c.errOut)
			}
		})
	}
}
