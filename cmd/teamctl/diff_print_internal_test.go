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

// TestNewCmdDiff: argv becomes the options (members, the mode, --json,
// --color, --team); --stat with --name-only and a colour that is none are
// usage errors.
func TestNewCmdDiff(t *testing.T) {
	for _, c := range []struct {
		args    []string
		members []string
		mode    team.DiffMode
		json    bool
		color   string
		usage   string
	}{
		{args: nil, mode: team.DiffPatch, color: "auto"},
		{args: []string{"a", "b", "--stat", "--team", "t"}, members: []string{"a", "b"}, mode: team.DiffStat, color: "auto"},
		{args: []string{"--name-only", "--color", "never"}, mode: team.DiffNames, color: "never"},
		{args: []string{"a", "--json", "--color=always"}, members: []string{"a"}, mode: team.DiffStat, json: true, color: "always"},
		{args: []string{"--stat", "--name-only"}, usage: "--stat and --name-only do not go together"},
		{args: []string{"--color", "sometimes"}, usage: `--color "sometimes": give auto, always or never`},
	} {
		var got *diffOptions
		g := &globals{}
		cmd := newDiffCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), g, func(_ context.Context, o *diffOptions) error {
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
		if err != nil || got == nil || strings.Join(got.Members, " ") != strings.Join(c.members, " ") || got.Mode != c.mode || got.JSON != c.json || got.Color != c.color {
			t.Errorf("%q: options %+v, %v", c.args, got, err)
		}
		if len(c.args) > 4 && g.team != "t" {
			t.Errorf("%q: team %q", c.args, g.team)
		}
	}
}

// fakeDiffer is a team whose work is ch.
type fakeDiffer struct {
	ch      *team.Changes
	members []string
	mode    team.DiffMode
}

func (f *fakeDiffer) Diff(_ context.Context, members []string, mode team.DiffMode) (*team.Changes, error) {
	f.members, f.mode = members, mode
	return f.ch, nil
}

// changes is a team of two: a with a worktree (a commit, a binary file, a
// name with a newline), and the lead in the shared root.
func changes() *team.Changes {
	return &team.Changes{Team: "t", Files: 4, Added: 13, Deleted: 1, Work: []team.WorkChanges{
		{Member: "a", Members: []string{"a"}, Worktree: true, Branch: "teamctl/t/a", Base: &worktrees.Base{Name: "main"}, Commits: 1, Uncommitted: 2,
			Files: []worktrees.FileChange{
				{Path: "app.go", Status: "modified", Added: 10, Deleted: 1},
				{Path: "logo.bin", Status: "added", Binary: true},
				{Path: "new\nline.txt", Status: "added", Added: 1},
			}, Added: 11, Deleted: 1,
			LeftOut: []worktrees.LeftOut{{Path: "disk.img", Why: "200 MiB, over 100 MiB"}},
			Patch:   "diff --git a/app.go b/app.go\n--- a/app.go\n+++ b/app.go\n@@ -1 +1 @@\n-old\n+new \x1b[2J\n+++ not a header\n context\n"},
		{Members: []string{"lead", "c"}, Path: "/repo", Uncommitted: 1, Files: []worktrees.FileChange{{Path: "notes.txt", Status: "added", Added: 2}}, Added: 2,
			Notes: []string{"no worktree of their own: the uncommitted changes of the checkout /repo"}},
	}}
}

// TestDiffRun: --stat per member and the team's total, as git prints it;
// --name-only a line per file; the patch made visible (an escape sequence in
// a file shows as text) and coloured as git colours it when asked, never
// taking an added "+++" line for a header; --json the changes, exact; work
// that could not be read is an error, after the rest.
func TestDiffRun(t *testing.T) {
	run := func(o diffOptions, ch *team.Changes) (string, *fakeDiffer, error) {
		var out bytes.Buffer
		f := &fakeDiffer{ch: ch}
		o.IO = iostreams.Test(nil, &out, new(bytes.Buffer))
		o.Open = func(context.Context, string) (differ, error) { return f, nil }
		if o.Color == "" {
			o.Color = "auto"
		}
		err := diffRun(context.Background(), &o)
		return out.String(), f, err
	}
	out, f, err := run(diffOptions{Mode: team.DiffStat, Members: []string{"a", "lead"}}, changes())
	want := `a: on teamctl/t/a, 1 commit and 2 uncommitted files since main
  left out: disk.img (200 MiB, over 100 MiB)
  app.go        | 11 ++++++++++-
  logo.bin      | Bin
  new\nline.txt | 1 +
  3 files changed, 11 insertions(+), 1 deletion(-)
lead, c: 1 uncommitted file
  no worktree of their own: the uncommitted changes of the checkout /repo
  notes.txt | 2 ++
  1 file changed, 2 insertions(+)
team t: 4 files changed, 13 insertions(+), 1 deletion(-)
`
	if err != nil || out != want || f.mode != team.DiffStat || strings.Join(f.members, ",") != "a,lead" {
		t.Errorf("--stat (%v, mode %v, members %v):\n%s\nwant:\n%s", err, f.mode, f.members, out, want)
	}
	if out, _, _ := run(diffOptions{Mode: team.DiffNames}, changes()); out != "a\tapp.go\na\tlogo.bin\na\tnew\\nline.txt\nlead, c\tnotes.txt\n" {
		t.Errorf("--name-only:\n%q", out)
	}
	out, _, _ = run(diffOptions{Mode: team.DiffPatch, Color: "always"}, changes())
	for _, s := range []string{
		"\x1b[1;33m=== a: on teamctl/t/a, 1 commit and 2 uncommitted files since main\x1b[0m\n",
		"\x1b[1m+++ b/app.go\x1b[0m\n", "\x1b[36m@@ -1 +1 @@\x1b[0m\n", "\x1b[31m-old\x1b[0m\n",
		"\x1b[32m+new \\x1b[2J\x1b[0m\n", "\x1b[32m+++ not a header\x1b[0m\n", "\n context\n",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("the patch lacks %q:\n%q", s, out)
		}
	}
	if out, _, _ := run(diffOptions{Mode: team.DiffPatch, Color: "never"}, changes()); strings.Contains(out, "\x1b") {
		t.Errorf("--color never, coloured:\n%q", out)
	}
	out, _, err = run(diffOptions{Mode: team.DiffStat, JSON: true}, changes())
	var back team.Changes
	if err != nil || json.Unmarshal([]byte(out), &back) != nil || back.Work[0].Files[2].Path != "new\nline.txt" || strings.Contains(out, "diff --git") {
		t.Errorf("--json (%v):\n%s", err, out)
	}
	broken := changes()
	broken.Work[0].Error = "the worktree is gone and so is the branch"
	if out, _, err := run(diffOptions{Mode: team.DiffStat}, broken); err == nil || !strings.Contains(err.Error(), "the work of a could not be read") || !strings.Contains(out, "a: its work cannot be read: the worktree is gone") || !strings.Contains(out, "lead, c: 1 uncommitted file") {
		t.Errorf("work that could not be read: %v\n%s", err, out)
	}
}

// TestNewCmdConflicts: --json and --team are the options; an argument is a
// usage error.
func TestNewCmdConflicts(t *testing.T) {
	var got *conflictsOptions
	g := &globals{}
	cmd := newConflictsCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), g, func(_ context.Context, o *conflictsOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"--json", "--team", "t"})
	if err := cmd.Execute(); err != nil || got == nil || !got.JSON || g.team != "t" {
		t.Fatalf("options %+v, team %q, %v", got, g.team, err)
	}
	checkUsage(cmd)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetArgs([]string{"extra"})
	var ue *usageError
	if err := cmd.Execute(); !errors.As(err, &ue) {
		t.Errorf("an argument: %v, want a usage error", err)
	}
}

type fakeConflicter struct{ c *team.Conflicts }

func (f fakeConflicter) Conflicts(context.Context) (*team.Conflicts, error) { return f.c, nil }

// TestConflictsRun: a conflict is said with the files and their kind, pair
// by pair and into the base, and exits 1; files both change cleanly are
// said too; nothing in conflict exits 0; who was not compared is named;
// --json is exact.
func TestConflictsRun(t *testing.T) {
	run := func(c *team.Conflicts, asJSON bool) (string, error) {
		var out bytes.Buffer
		err := conflictsRun(context.Background(), &conflictsOptions{IO: iostreams.Test(nil, &out, new(bytes.Buffer)), JSON: asJSON,
			Open: func(context.Context) (conflicter, error) { return fakeConflicter{c}, nil }})
		return out.String(), err
	}
	found := &team.Conflicts{Team: "t",
		Pairs: []team.PairConflict{
			{Members: [2]string{"a", "b"}, Merge: worktrees.Merge{Both: []string{"app.go", "x y.go"}, Conflicts: []worktrees.Conflict{{Path: "app.go", Kind: "contents"}}}},
			{Members: [2]string{"a", "c"}, Merge: worktrees.Merge{Both: []string{"README"}, Conflicts: []worktrees.Conflict{}}},
			{Members: [2]string{"b", "c"}, Merge: worktrees.Merge{Both: []string{}, Conflicts: []worktrees.Conflict{}}},
		},
		Bases:   []team.BaseConflict{{Member: "a", Base: "main", Moved: 2, Merge: worktrees.Merge{Both: []string{"new\nline"}, Conflicts: []worktrees.Conflict{{Path: "new\nline", Kind: "modify/delete"}}}}},
		Skipped: []team.Skipped{{Member: "lead", Why: "no worktree of its own"}},
	}
	out, err := run(found, false)
	want := `a and b: conflict in app.go (contents), and both change x y.go, which merge cleanly
a and c: both change README, which merge cleanly
a into main (2 commits since a started): conflict in new\nline (modify/delete)
3 pairs and 1 moved base compared: 2 conflicts
lead: not compared: no worktree of its own
`
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 || out != want {
		t.Errorf("conflicts (%v):\n%s\nwant:\n%s", err, out, want)
	}
	out, err = run(found, true)
	var back team.Conflicts
	if !errors.As(err, &ee) || json.Unmarshal([]byte(out), &back) != nil || back.Bases[0].Conflicts[0].Path != "new\nline" || len(back.Pairs) != 3 {
		t.Errorf("--json (%v):\n%s", err, out)
	}
	none := &team.Conflicts{Team: "t", Pairs: found.Pairs[1:], Bases: []team.BaseConflict{}}
	if out, err := run(none, false); err != nil || !strings.HasSuffix(out, "2 pairs and 0 moved bases compared: no conflict\n") {
		t.Errorf("no conflict (%v):\n%s", err, out)
	}
	none.Unread = []team.Skipped{{Member: "d", Why: `branch name "--x": use letters`}}
	if out, err := run(none, false); err == nil || errors.As(err, &ee) || !strings.Contains(out, `d: not compared: branch name "--x"`) {
		t.Errorf("unread work (%v):\n%s", err, out)
	}
}
