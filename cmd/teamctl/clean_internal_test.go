package main

import (
	"bytes"
	"context"
	"errors"
	"slices"
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
		{args: []string{"--all-teams", "--yes"}, want: clean.Options{TmuxBin: "/opt/tmux"}, yes: true},
		{args: []string{"auth-fix", "--all-teams"}, err: "--all-teams and a team name (auth-fix) do not go together: name one team, or every team"},
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
			case got.Clean != c.want || got.JSON != c.json || got.Yes != c.yes || got.Run == nil || got.Find == nil ||
				got.Named != (c.want.Team != "") || got.AllTeams != slices.Contains(c.args, "--all-teams"):
				t.Errorf("options %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestCleanRun: clean's plan is printed, then, once it is done, what became
// of each action, the notes and the counts. A team named, --yes or a dry
// run ask nothing. Otherwise (the team you are in, found; or --all-teams)
// clean shows a dry run's plan first — what it will refuse and keep too —
// and asks: a yes on the terminal goes on, a no removes nothing (exit 1),
// and without a terminal it says what to do instead (a usage error).
// --json prints the report alone; something refused or failed is exit 1.
func TestCleanRun(t *testing.T) {
	const (
		plan     = "plan:\n  state  a  /s/a  teamctl's record of a\n  state  b  /s/b  teamctl's record of b\n"
		refusing = "plan:\n  state  a  /s/a  teamctl's record of a\n  state  b  /s/b  teamctl's record of b; refused: untracked files scratch.txt\n"
		question = "clean would act on these teams: a\nremove these? [y/N] "
	)
	dry := func(o clean.Options) clean.Options { o.DryRun = true; return o }
	all := clean.Options{}
	found := clean.Options{Team: "proj", Found: true}
	for _, c := range []struct {
		name            string
		o               clean.Options
		named, allTeams bool
		find            string // what Find finds; "!" an error
		json, yes       bool
		terminal        string // typed at the terminal; "" for no terminal
		empty           bool   // nothing to clean: else a and b planned (b refused by a dry run)
		results         []string
		notes           []string
		ran             []clean.Options
		out, errOut     string
		err             string
		code            int
	}{
		{name: "named", o: clean.Options{Team: "a"}, named: true, results: []string{clean.Done, clean.Done}, ran: []clean.Options{{Team: "a"}},
			out: plan + "\nresult:\n  state  a  /s/a  done\n  state  b  /s/b  done\n2 done, 0 refused, 0 kept, 0 failed\n"},
		{name: "every team, asked yes", allTeams: true, terminal: "y\n", results: []string{clean.Done, clean.Refused}, ran: []clean.Options{dry(all), all},
			notes: []string{"team c is running: only its orphaned panes are cleaned"}, errOut: question, code: 1,
			out: refusing + "note: team c is running: only its orphaned panes are cleaned\n\nresult:\n  state  a  /s/a  done\n  state  b  /s/b  refused: untracked files scratch.txt\n1 done, 1 refused, 0 kept, 0 failed\n"},
		{name: "every team, asked no", allTeams: true, terminal: "n\n", ran: []clean.Options{dry(all)}, out: refusing, errOut: question + "teamctl: nothing removed\n", code: 1},
		{name: "every team, no terminal", allTeams: true, ran: []clean.Options{dry(all)}, out: refusing,
			err: "clean without a team acts on every team its plan touches (a), and there is no terminal to ask on: pass --yes, or name a team (teamctl clean TEAM); --dry-run shows the plan"},
		{name: "the team you are in, asked yes", find: "proj", terminal: "y\n", results: []string{clean.Done, clean.Done}, ran: []clean.Options{dry(found), found},
			errOut: "clean would act on the team you are in: a\nremove these? [y/N] ",
			out:    refusing + "\nresult:\n  state  a  /s/a  done\n  state  b  /s/b  done\n2 done, 0 refused, 0 kept, 0 failed\n"},
		{name: "the team you are in, no terminal", find: "proj", ran: []clean.Options{dry(found)}, out: refusing,
			err: "clean without a team name acts on the team you are in (a), and there is no terminal to ask on: pass --yes, or name it (teamctl clean a); --dry-run shows the plan"},
		{name: "the team you are in, --yes", find: "proj", yes: true, results: []string{clean.Done, clean.Done}, ran: []clean.Options{found},
			out: plan + "\nresult:\n  state  a  /s/a  done\n  state  b  /s/b  done\n2 done, 0 refused, 0 kept, 0 failed\n"},
		{name: "no team found", find: "!", err: "2 teams are up (a, b): name one; or clean every team with --all-teams"},
		{name: "no team with state: every team's leftovers", find: "", yes: true, results: []string{clean.Done, clean.Done}, ran: []clean.Options{all},
			out: plan + "\nresult:\n  state  a  /s/a  done\n  state  b  /s/b  done\n2 done, 0 refused, 0 kept, 0 failed\n"},
		{name: "yes", allTeams: true, yes: true, results: []string{clean.Done, clean.Failed}, notes: []string{"team c is running: only its orphaned panes are cleaned"}, ran: []clean.Options{all},
			out: plan + "note: team c is running: only its orphaned panes are cleaned\n\nresult:\n  state  a  /s/a  done\n  state  b  /s/b  failed: permission denied\n1 done, 0 refused, 0 kept, 1 failed\n", code: 1},
		{name: "dry run", o: clean.Options{DryRun: true}, allTeams: true, ran: []clean.Options{{DryRun: true}},
			out: refusing + "dry run, nothing changed: 1 to do, 1 refused, 0 kept\n", code: 1},
		{name: "nothing", o: clean.Options{Team: "a"}, named: true, empty: true, ran: []clean.Options{{Team: "a"}}, out: "nothing to clean\n"},
		{name: "nothing, asked nothing", find: "proj", empty: true, ran: []clean.Options{dry(found)}, out: "nothing to clean\n"},
		{name: "json", o: clean.Options{Team: "a"}, named: true, json: true, results: []string{clean.Done, clean.Refused}, code: 1, ran: []clean.Options{{Team: "a"}}, out: `{
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
				IO: ios, Clean: c.o, JSON: c.json, Yes: c.yes, Named: c.named, AllTeams: c.allTeams,
				Find: func(context.Context) (string, error) {
					if c.named || c.allTeams {
						t.Error("a team named, or every team, was looked for")
					}
					if c.find == "!" {
						return "", errors.New("2 teams are up (a, b): name one")
					}
					return c.find, nil
				},
				Run: func(ctx context.Context, o clean.Options, shown func(*clean.Report), confirm func(context.Context, []string) error) (*clean.Report, error) {
					ran = append(ran, o)
					if confirm != nil {
						t.Error("clean.Run asked to ask: the command asks itself")
					}
					r := &clean.Report{DryRun: o.DryRun, Notes: c.notes}
					if !c.empty {
						for _, n := range []string{"a", "b"} {
							r.Actions = append(r.Actions, &clean.Action{Step: clean.StepState, Team: n, Target: "/s/" + n, Why: "teamctl's record of " + n, Result: clean.Planned})
						}
						if o.DryRun { // a dry run looks: b's worktree holds a file
							r.Actions[1].Result, r.Actions[1].Detail = clean.Refused, "untracked files scratch.txt"
						}
					}
					if shown != nil {
						shown(r)
					}
					if o.DryRun {
						return r, nil
					}
					for i, res := range c.results { // carried out
						r.Actions[i].Result = res
						switch {
						case res == clean.Refused:
							r.Actions[i].Detail = "untracked files scratch.txt"
						case res == clean.Failed:
							r.Actions[i].Detail = "permission denied"
						}
					}
					if c.json {
						for i, res := range c.results {
							if res == clean.Refused {
								r.Actions[i].Detail = "permission denied"
							}
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
				if err == nil || err.Error() != c.err || (c.find != "!" && !errors.As(err, &ue)) {
					t.Errorf("error %v, want the usage error %q", err, c.err)
				}
			case err != nil:
				t.Errorf("error %v", err)
			}
			if len(ran) != len(c.ran) || (len(ran) > 0 && !slices.Equal(ran, c.ran)) {
				t.Errorf("cleaned with %+v, want %+v", ran, c.ran)
			}
			if out.String() != c.out || errOut.String() != c.errOut {
				t.Errorf("printed\n%s\nand %q; want\n%s\nand %q", out.String(), errOut.String(), c.out, c.errOut)
			}
		})
	}
}
