package main

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team"
)

// TestNewCmdTeams: argv becomes the options (--json), and nothing is done
// but the run function; teams is about every team, so it has no --team.
func TestNewCmdTeams(t *testing.T) {
	var got *teamsOptions
	ios, _, _ := bufIO("")
	cmd := newTeamsCmd(ios, &globals{}, func(_ context.Context, o *teamsOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"--json"})
	if err := cmd.Execute(); err != nil || got == nil || !got.JSON {
		t.Fatalf("%v, options %+v", err, got)
	}
	got = nil
	cmd.SetArgs([]string{"--team", "auth"})
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	if err := cmd.Execute(); err == nil || got != nil {
		t.Errorf("teams --team: %v, run %v", err, got != nil)
	}
}

// TestTeamsRun: every team a row, and below the table on stderr what to do
// of one that could not be looked at, is lost, or is up without a
// supervisor; JSON as listed; a sentence for none; an error is List's.
func TestTeamsRun(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.Local)
	seen := now.Add(-time.Hour)
	sup := team.SupervisorStatus{Running: true, PID: 42}
	ts := []team.TeamSummary{
		{Team: "auth", Up: true, Members: 3, Running: 3, Socket: "teamctl-auth", Layout: "/src/auth.yaml", Supervisor: sup,
			Usage: &state.MemberUsage{Turns: 4, Cost: 1.5, Models: []string{"claude-sonnet-4-5", "claude-opus-5-5"}, NoPrice: []string{"claude-opus-5-5"}}},
		{Team: "bare", Up: true, Members: 1, Running: 1, Socket: "teamctl-bare", Layout: "/src/bare.yaml"},
		{Team: "gone", Members: 2, Socket: "teamctl-gone", Layout: "/src/gone.yaml", Lost: true, LastSeen: &seen},
		{Team: "moved", Members: 2, Socket: "teamctl-moved", Layout: "/src/moved.yaml", Lost: true, LayoutProblem: "/src/moved.yaml changed since up"},
		{Team: "bad", Error: "state.json: unexpected end of JSON input"},
		{Team: "done", Members: 1, Socket: "teamctl-done", Layout: "/src/done.yaml"},
	}
	for _, c := range []struct {
		name        string
		json        bool
		list        []team.TeamSummary
		listErr     error
		out, errOut string
		err         string
	}{
		{name: "the table", list: ts,
			out: "TEAM   UP                                                      RUNNING  COST              SUPERVISOR   SOCKET         LAYOUT\n" +
				"auth   yes                                                     3/3      $1.50 + no price  pid 42       teamctl-auth   /src/auth.yaml\n" +
				"bare   yes                                                     1/1      -                 NOT running  teamctl-bare   /src/bare.yaml\n" +
				"gone   down (lost: last seen 2026-12-01 08:00:00, 1h0m0s ago)  0/2      -                 -            teamctl-gone   /src/gone.yaml\n" +
				"moved  down (lost)                                             0/2      -                 -            teamctl-moved  /src/moved.yaml\n" +
				"bad    error                                                   -        -                 -            -              -\n" +
				"done   no                                                      0/1      -                 -            teamctl-done   /src/done.yaml\n",
			errOut: "teamctl: team bare is up without a supervisor: `teamctl supervise --team bare` or `teamctl up` starts it\n" +
				"teamctl: team gone was not brought down but its tmux server is gone: `teamctl up /src/gone.yaml` (or `teamctl up --all`) brings it back, every conversation resumed\n" +
				"teamctl: team moved was not brought down but its tmux server is gone; /src/moved.yaml changed since up: look at it, then `teamctl up /src/moved.yaml` brings it back (`teamctl up --all` passes it by)\n" +
				"teamctl: team bad: state.json: unexpected end of JSON input\n"},
		{name: "none", list: []team.TeamSummary{}, out: "no teams up: `teamctl up LAYOUT` brings one up\n"},
		{name: "none as JSON", json: true, list: []team.TeamSummary{}, out: "[]\n"},
		{name: "List's error", listErr: errors.New("no state folder"), err: "no state folder"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ios, out, errOut := bufIO("")
			err := teamsRun(context.Background(), &teamsOptions{IO: ios, JSON: c.json, Now: func() time.Time { return now },
				List: func(context.Context) ([]team.TeamSummary, error) { return c.list, c.listErr }})
			if c.err != "" && (err == nil || err.Error() != c.err) || c.err == "" && err != nil {
				t.Fatalf("error %v, want %q", err, c.err)
			}
			if out.String() != c.out || errOut.String() != c.errOut {
				t.Errorf("printed:\n%s\non stderr:\n%s\nwant:\n%s\non stderr:\n%s", out.String(), errOut.String(), c.out, c.errOut)
			}
		})
	}
}
