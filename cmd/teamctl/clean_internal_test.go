package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/clean"
	"github.com/teamctl/teamctl/internal/iostreams"
)

// TestNewCmdClean: argv becomes clean's options (TEAM or --team, the tmux
// to ask, --all, --dry-run, --force, --snapshots with --older-than) and
// --json and --yes; arguments that do not go together are usage errors, and
// nothing is done but the run function.
func TestNewCmdClean(t *testing.T) {
	for _, c := range []struct {
		args      []string
		want      clean.Options
		json, yes bool
		err       string
	}{
		{args: nil, want: clean.Options{TmuxBin: "/opt/tmux"}},
		{args: []string{"auth-fix", "--force", "--all", "--dry-run"}, want: clean.Options{Team: "auth-fix", TmuxBin: "/opt/tmux", Force: true, All: true, DryRun: true}},
		{args: []string{"--team", "auth-fix", "--json", "-y"}, want: clean.Options{Team: "auth-fix", TmuxBin: "/opt/tmux"}, json: true, yes: true},
		{args: []string{"auth-fix", "--team", "auth-fix"}, want: clean.Options{Team: "auth-fix", TmuxBin: "/opt/tmux"}},
		{args: []string{"--snapshots", "--older-than", "30d", "--yes"}, want: clean.Options{TmuxBin: "/opt/tmux", Snapshots: true, OlderThan: 30 * 24 * time.Hour}, yes: true},
		{args: []string{"--snapshots", "--older-than", "12h"}, want: clean.Options{TmuxBin: "/opt/tmux", Snapshots: true, OlderThan: 12 * time.Hour}},
		{args: []string{"auth-fix", "--team", "web"}, err: "TEAM auth-fix and --team web name two teams: name one"},
		{args: []string{"--older-than", "30d"}, err: "--older-than goes with --snapshots"},
		{args: []string{"--snapshots", "--force"}, err: "--snapshots removes snapshots only: it takes no --force or --all"},
		{args: []string{"--snapshots", "--all"}, err: "--snapshots removes snapshots only: it takes no --force or --all"},
		{args: []string{"--snapshots", "--older-than", "0d"}, err: `--older-than "0d": want a positive number of days (30d) or a duration (12h, 90m)`},
		{args: []string{"--snapshots", "--older-than", "a month"}, err: `--older-than "a month": want a positive number of days (30d) or a duration (12h, 90m)`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var got *cleanOptions
			cmd := newCleanCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), &globals{tmuxBin: "/opt/tmux"}, func(_ context.Context, o *cleanOptions) error {
				got = o
				return nil
			})
			cmd.SetArgs(c.args)
			cmd.SetOut(new(bytes.Buffer))
			cmd.SetErr(new(bytes.Buffer))
			err := cmd.Execute()
			var ue *usageError
			switch {
			case c.err != "":
				if !errors.As(err, &ue) || err.Error() != c.err || got != nil {
					t.Fatalf("error %v (a usage error: %v), run: %v; want %q", err, ue != nil, got != nil, c.err)
				}
			case err != nil:
				t.Fatal(err)
			case got.Clean != c.want || got.JSON != c.json || got.Yes != c.yes || got.Run == nil:
				t.Errorf("options %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestCleanRun: clean's plan is printed, then, once it is done, what became
// of each action, the notes and the counts; asked (no team named), a yes on
// the terminal goes on, a no removes nothing (exit 1), and without a terminal
// it says what to do instead (a usage error); --yes asks nothing; --json
// prints the report alone; something refused or failed is exit 1.
func TestCleanRun(t *testing.T) {
	const (
		plan     = "plan:\n  state  a  /s/a  teamctl's record of a\n  state  b  /s/b  teamctl's record of b\n"
		question = "clean would act on these teams: a, b\nremove these? [y/N] "
	)
	for _, c := range []struct {
		name        string
		o           clean.Options
		json, yes   bool
		terminal    string   // typed at the terminal; "" for no terminal
		ask         bool     // clean asks (no team named)
		empty       bool     // nothing to clean: else a and b planned
		results     []string // what became of a and b
		notes       []string
		out, errOut string
		err         string
		code        int
	}{
		{name: "named", o: clean.Options{Team: "a"}, results: []string{clean.Done, clean.Done},
			out: plan + "\nresult:\n  state  a  /s/a  done\n  state  b  /s/b  done\n2 done, 0 refused, 0 kept, 0 failed\n"},
		{name: "asked yes", terminal: "y\n", ask: true, results: []string{clean.Done, clean.Done}, errOut: question,
			out: plan + "\nresult:\n  state  a  /s/a  done\n  state  b  /s/b  done\n2 done, 0 refused, 0 kept, 0 failed\n"},
		{name: "asked no", terminal: "n\n", ask: true, out: plan, errOut: question + "teamctl: nothing removed\n", code: 1},
		{name: "no terminal", ask: true, out: plan,
			err: "clean without a team acts on every team its plan touches (a, b), and there is no terminal to ask on: pass --yes, or name a team (teamctl clean TEAM); --dry-run shows the plan"},
		{name: "yes", yes: true, ask: true, results: []string{clean.Done, clean.Failed}, notes: []string{"team c is running: only its orphaned panes are cleaned"},
			out: plan + "note: team c is running: only its orphaned panes are cleaned\n\nresult:\n  state  a  /s/a  done\n  state  b  /s/b  failed: permission denied\n1 done, 0 refused, 0 kept, 1 failed\n", code: 1},
		{name: "dry run", o: clean.Options{DryRun: true},
			out: plan + "dry run, nothing changed: 2 to do, 0 refused, 0 kept\n"},
		{name: "nothing", o: clean.Options{Team: "a"}, empty: true, out: "nothing to clean\n"},
		{name: "json", o: clean.Options{Team: "a"}, json: true, results: []string{clean.Done, clean.Refused}, code: 1, out: `{
  "dry_run": false,
  "actions": [
    {
      "step": "state",
      "team": "a",
      "target": "/s/a",
      "why": "teamctl's record of a",
      "result": "done"
    },
    {
      "step": "state",
      "team": "b",
      "target": "/s/b",
      "why": "teamctl's record of b",
      "result": "refused",
      "detail": "permission denied"
    }
  ]
}
`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			ios := iostreams.Test(nil, &out, &errOut)
			if c.terminal != "" {
				var typeIn func(string)
				ios, typeIn = terminalIO(t, &out, &errOut)
				typeIn(c.terminal)
			}
			var ran []clean.Options
			err := cleanRun(context.Background(), &cleanOptions{
				IO: ios, Clean: c.o, JSON: c.json, Yes: c.yes,
				Run: func(ctx context.Context, o clean.Options, shown func(*clean.Report), confirm func(context.Context, []string) error) (*clean.Report, error) {
					ran = append(ran, o)
					r := &clean.Report{DryRun: o.DryRun, Notes: c.notes}
					if !c.empty {
						for _, n := range []string{"a", "b"} {
							r.Actions = append(r.Actions, &clean.Action{Step: clean.StepState, Team: n, Target: "/s/" + n, Why: "teamctl's record of " + n, Result: clean.Planned})
						}
					}
					shown(r)
					if (confirm == nil) != c.yes {
						t.Errorf("asks: %v, with --yes: %v", confirm != nil, c.yes)
					}
					if c.ask && confirm != nil {
						if err := confirm(ctx, []string{"a", "b"}); err != nil {
							return nil, err
						}
					}
					for i, res := range c.results { // carried out
						r.Actions[i].Result = res
						if res == clean.Failed || res == clean.Refused {
							r.Actions[i].Detail = "permission denied"
						}
					}
					return r, nil
				},
			})
			var ee exitError
			switch {
			case c.code != 0:
				if !errors.As(err, &ee) || ee.code != c.code {
					t.Errorf("error %v, want exit code %d", err, c.code)
				}
			case c.err != "":
				var ue *usageError
				if !errors.As(err, &ue) || err.Error() != c.err {
					t.Errorf("error %v, want the usage error %q", err, c.err)
				}
			case err != nil:
				t.Errorf("error %v", err)
			}
			if len(ran) != 1 || ran[0] != c.o {
				t.Errorf("cleaned with %+v, want %+v", ran, c.o)
			}
			if out.String() != c.out || errOut.String() != c.errOut {
				t.Errorf("printed\n%s\nand %q; want\n%s\nand %q", out.String(), errOut.String(), c.out, c.errOut)
			}
		})
	}
}
