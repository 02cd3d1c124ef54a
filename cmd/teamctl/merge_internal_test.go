package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/team"
	"github.com/teamctl/teamctl/worktrees"
)

// TestNewCmdMerge: argv becomes the options (members in order, --into,
// --squash, -m, --wip, --json, --team); no member is a usage error.
func TestNewCmdMerge(t *testing.T) {
	for _, c := range []struct {
		args  []string
		want  mergeOptions
		usage bool
	}{
		{args: []string{"a"}, want: mergeOptions{Members: []string{"a"}}},
		{args: []string{"b", "a", "--into", "release", "--squash", "-m", "land", "--wip", "--json", "--team", "t"},
			want: mergeOptions{Members: []string{"b", "a"}, JSON: true, Merge: team.MergeOptions{Into: "release", Squash: true, Message: "land", WIP: true}}},
		{args: nil, usage: true},
		{args: []string{"a", "--all"}, usage: true},
	} {
		var got *mergeOptions
		g := &globals{}
		cmd := newMergeCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), g, func(_ context.Context, o *mergeOptions) error {
			got = o
			return nil
		})
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		cmd.SetArgs(c.args)
		checkUsage(cmd)
		err := cmd.Execute()
		var ue *usageError
		if c.usage {
			if !errors.As(err, &ue) || got != nil {
				t.Errorf("%q: %v, want a usage error", c.args, err)
			}
			continue
		}
		if err != nil || got == nil || strings.Join(got.Members, " ") != strings.Join(c.want.Members, " ") || got.Merge != c.want.Merge || got.JSON != c.want.JSON {
			t.Errorf("%q: options %+v, %v", c.args, got, err)
		}
		if strings.Contains(strings.Join(c.args, " "), "--team") && g.team != "t" {
			t.Errorf("%q: team %q", c.args, g.team)
		}
	}
}

// TestNewCmdFinish: members or --all, not both, not neither; merge's flags.
func TestNewCmdFinish(t *testing.T) {
	for _, c := range []struct {
		args  []string
		all   bool
		o     team.MergeOptions
		usage string
	}{
		{args: []string{"a", "b", "--squash"}, o: team.MergeOptions{Squash: true}},
		{args: []string{"--all", "--into", "dev", "--wip"}, all: true, o: team.MergeOptions{Into: "dev", WIP: true}},
		{args: nil, usage: "name the members to finish, or --all"},
		{args: []string{"a", "--all"}, usage: "(not both)"},
	} {
		var got *finishOptions
		cmd := newFinishCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), &globals{}, func(_ context.Context, o *finishOptions) error {
			got = o
			return nil
		})
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		cmd.SetArgs(c.args)
		err := cmd.Execute()
		var ue *usageError
		if c.usage != "" {
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.usage) || got != nil {
				t.Errorf("%q: %v, want the usage error %q", c.args, err, c.usage)
			}
			continue
		}
		if err != nil || got == nil || got.All != c.all || got.Merge != c.o {
			t.Errorf("%q: options %+v, %v", c.args, got, err)
		}
	}
}

// fakeLander is a team whose merges and finishes land what it is told.
type fakeLander struct {
	members []string
	all     bool
	merged  *team.MergeResult
	done    *team.FinishResult
	running []string // finish_stop_internal_test.go
	stopped []string
}

func (f *fakeLander) Merge(_ context.Context, members []string, _ team.MergeOptions) (*team.MergeResult, error) {
	f.members = members
	return f.merged, nil
}

func (f *fakeLander) Finish(_ context.Context, members []string, all bool, _ team.MergeOptions) (*team.FinishResult, error) {
	f.members, f.all = members, all
	return f.done, nil
}

var landedA = team.Landed{Member: "a", WIP: "c0ffee1234567", Landed: worktrees.Landed{Branch: "teamctl/t/a", Into: "main", Old: "1111111111aa", New: "2222222222bb", Commits: 2, Checkout: "/repo"}}

// TestMergeRun: what landed on stdout, the refusal (an agent's file name
// made visible) and who was not tried on stderr, exit 1; --json prints the
// result and exits 1 all the same.
func TestMergeRun(t *testing.T) {
	f := &fakeLander{merged: &team.MergeResult{Team: "t", Landed: []team.Landed{landedA}, Refused: &team.Refusal{
		Member: "b", Why: "merging teamctl/t/b into main would conflict", NotTried: []string{"c"},
		Conflicts: []worktrees.Conflict{{Path: "evil\x1b[2Jname.go", Kind: "contents"}}}}}
	var out, errOut bytes.Buffer
	opts := &mergeOptions{IO: iostreams.Test(nil, &out, &errOut), Members: []string{"a", "b", "c"},
		Open: func(_ context.Context, member string) (merger, error) {
			if member != "a" {
				t.Errorf("opened the team of %q, want a's", member)
			}
			return f, nil
		}}
	err := mergeRun(context.Background(), opts)
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 || strings.Join(f.members, " ") != "a b c" {
		t.Fatalf("%v, members %q", err, f.members)
	}
	for _, want := range []string{
		"landed a: merged teamctl/t/a into main (2 commit(s)), 1111111111..2222222222\n",
		"  --wip: its uncommitted work is commit c0ffee1234 on teamctl/t/a\n",
		"  brought forward: /repo, where main is checked out\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	if got := errOut.String(); !strings.Contains(got, "refused b: merging teamctl/t/b into main would conflict\n") || !strings.Contains(got, "  conflict (contents): evil\\x1b[2Jname.go\n") || !strings.Contains(got, "not tried: c\n") {
		t.Errorf("stderr:\n%s", got)
	}

	out.Reset()
	errOut.Reset()
	opts.JSON = true
	err = mergeRun(context.Background(), opts)
	var res team.MergeResult
	if jerr := json.Unmarshal(out.Bytes(), &res); jerr != nil || !errors.As(err, &ee) || res.Refused.Member != "b" || res.Landed[0].New != "2222222222bb" || errOut.Len() != 0 {
		t.Errorf("--json: %v, %v, %+v, stderr %q", jerr, err, res, errOut.String())
	}

	f.merged = &team.MergeResult{Team: "t", Landed: []team.Landed{{Member: "a", Landed: worktrees.Landed{Branch: "x", Into: "main", UpToDate: true}}}}
	out.Reset()
	opts.JSON = false
	if err := mergeRun(context.Background(), opts); err != nil || out.String() != "landed a: nothing to land, main has all of x already\n" {
		t.Errorf("up to date: %v, %q", err, out.String())
	}
}

// TestFinishRun: what went of each member, and the snapshot with the
// command that brings it back; --all opens the team of no member.
func TestFinishRun(t *testing.T) {
	s := worktrees.Snapshot{Ref: worktrees.SnapshotRefs + "t/a/20260101T000000Z"}
	f := &fakeLander{done: &team.FinishResult{Team: "t", Finished: []team.Finished{{Landed: landedA, Worktree: "/wt/t/a", Kept: "not made by teamctl", Snapshot: &s, Restore: "teamctl restore t/a/20260101T000000Z"}}}}
	var out bytes.Buffer
	opened := "?"
	opts := &finishOptions{IO: iostreams.Test(nil, &out, new(bytes.Buffer)), All: true,
		Open: func(_ context.Context, member string) (finisher, error) { opened = member; return f, nil }}
	if err := finishRun(context.Background(), opts); err != nil || opened != "" || !f.all {
		t.Fatalf("%v, opened %q, all %v", err, opened, f.all)
	}
	for _, want := range []string{
		"finished a: merged teamctl/t/a into main",
		"  removed worktree /wt/t/a\n  kept branch teamctl/t/a: not made by teamctl\n",
		"  what removing them would have lost is in snapshot t/a/20260101T000000Z: `teamctl restore t/a/20260101T000000Z` brings it back\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
}
