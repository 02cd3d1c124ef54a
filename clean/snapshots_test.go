package clean

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// world gives a test its own state root, tmux folder and git identity, and
// runs it in a folder outside any repository.
func world(t *testing.T) context.Context {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	t.Setenv("TMUX_TMPDIR", filepath.Join(dir, "tmux"))
	t.Setenv("HOME", filepath.Join(dir, "home"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.invalid")
	t.Setenv("GIT_COMMITTER_NAME", "t")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.invalid")
	t.Chdir(t.TempDir())
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// teamLayout writes the layout of team, in repo's folder, whose members
// (a command each) have worktrees, and returns its path: what says whose
// a worktree record is.
func teamLayout(t *testing.T, repo, team string, members ...string) string {
	t.Helper()
	body := "team: " + team + "\nroot: " + repo + "\nmembers:\n"
	for _, m := range members {
		body += "  - name: " + m + "\n    command: [sleep, \"1\"]\n    worktree: true\n"
	}
	path := filepath.Join(filepath.Dir(repo), team+".yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func newRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	os.MkdirAll(dir, 0o755)
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "first")
	return dir
}

// snapshot makes a snapshot ref by hand, of main's head, and records its
// repository as clean does.
func snapshot(t *testing.T, repo, name string) {
	t.Helper()
	git(t, repo, "update-ref", worktrees.SnapshotRefs+name, "main")
	if err := snapshots.Add(repo); err != nil {
		t.Fatal(err)
	}
}

// TestCleanSnapshotsOlderThan: clean --snapshots --older-than plans only the
// snapshots older than asked (and of the team named), a dry run removes
// nothing, and a run removes exactly those.
func TestCleanSnapshotsOlderThan(t *testing.T) {
	c := world(t)
	repo := newRepo(t)
	now := time.Now().UTC()
	recent := "t/m/" + now.Add(-time.Hour).Format(worktrees.SnapshotTime)
	old := "t/m/" + now.Add(-31*24*time.Hour).Format(worktrees.SnapshotTime)
	otherOld := "u/m/" + now.Add(-40*24*time.Hour).Format(worktrees.SnapshotTime)
	for _, n := range []string{recent, old, otherOld, "t/m/notatime"} {
		snapshot(t, repo, n)
	}
	r, err := Plan(c, Options{Snapshots: true, OlderThan: 30 * 24 * time.Hour, Team: "t", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Actions) != 1 || r.Actions[0].Target != worktrees.SnapshotRefs+old || r.Actions[0].Step != StepSnapshotRef || r.Actions[0].Team != "t" {
		t.Fatalf("plan: %+v", r.Actions)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "no time") {
		t.Errorf("notes: %v", r.Notes)
	}
	r, err = Run(c, Options{Snapshots: true, OlderThan: 30 * 24 * time.Hour}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Counts(); c[Done] != 2 || len(r.Actions) != 2 {
		t.Errorf("run: %+v", r.Actions)
	}
	l, _ := snapshots.List(c, "")
	var names []string
	for _, s := range l {
		names = append(names, s.Name)
	}
	if len(names) != 2 || !strings.Contains(strings.Join(names, " "), recent) || !strings.Contains(strings.Join(names, " "), "t/m/notatime") {
		t.Errorf("left: %v", names)
	}
}

// TestCleanKeepsBranchesAndNeverTrustsTheirNames: for a team's record (as
// state.json has it, which anyone can edit) a branch with commits not merged
// is kept and the rest of the team goes; a recorded branch name git would
// take as an option, or a branch the worktree is not on, is left alone; with
// Force, a snapshot holds the worktree's files and the branch's commits
// before either goes.
func TestCleanKeepsBranchesAndNeverTrustsTheirNames(t *testing.T) {
	c := world(t)
	repo := newRepo(t)
	git(t, repo, "branch", "precious")
	folder := filepath.Join(repo, worktrees.DefaultFolder)
	var wts []state.Worktree
	for _, m := range []string{"ahead", "hostile", "elsewhere", "dirty"} {
		path := filepath.Join(folder, "t", m)
		branch := "teamctl/t/" + m
		if _, err := worktrees.Ensure(c, worktrees.Spec{Main: repo, Path: path, Branch: branch, Owner: "t/" + m}); err != nil {
			t.Fatal(err)
		}
		git(t, path, "commit", "-q", "--allow-empty", "-m", "work of "+m)
		wts = append(wts, state.Worktree{Member: m, Path: path, Main: repo, Folder: folder, Branch: branch, Base: "main", CreatedBranch: true})
	}
	wts[1].Branch = "--delete" // an option, were it passed as a name
	wts[2].Branch = "precious" // not the worktree's branch
	wts[3].Base = "--output=/tmp/x"
	os.WriteFile(filepath.Join(wts[3].Path, "notes.txt"), []byte("ideas"), 0o644)
	layout := teamLayout(t, repo, "t", "ahead", "hostile", "elsewhere", "dirty")
	if err := state.Save(&state.Team{Team: "t", LayoutPath: layout, Worktrees: wts}); err != nil {
		t.Fatal(err)
	}

	r, err := Run(c, Options{Team: "t"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	results := map[string]string{}
	for _, a := range r.Actions {
		results[a.Step+" "+a.Target] = a.Result + ": " + a.Detail
	}
	for target, want := range map[string]string{
		"branch teamctl/t/ahead":  "kept-branch: kept branch teamctl/t/ahead: 1 commit not merged into main",
		"branch --delete":         "kept: left alone: branch name",
		"branch precious":         "kept: left alone, not a branch teamctl made for elsewhere: not the name teamctl gives",
		"worktree " + wts[3].Path: "refused: would lose untracked files notes.txt",
	} {
		if !strings.HasPrefix(results[target], want) {
			t.Errorf("%s: %q, want %q…", target, results[target], want)
		}
	}
	if !worktrees.BranchExists(c, repo, "precious") || !worktrees.BranchExists(c, repo, "teamctl/t/ahead") {
		t.Fatal("a kept branch was deleted")
	}

	// With Force: the dirty worktree and its unmerged branch go, both in one
	// snapshot (and ahead's branch, in one of its own).
	r, err = Run(c, Options{Team: "t", Force: true}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var snap *Action
	for _, a := range r.Actions {
		if a.Result == Failed || a.Result == Refused {
			t.Errorf("clean --force: %s %s %s: %s", a.Step, a.Target, a.Result, a.Detail)
		}
		if a.Step == StepSnapshot && strings.HasPrefix(a.Target, worktrees.SnapshotRefs+"t/dirty/") {
			snap = a
		}
	}
	if snap == nil || snap.Snapshot == nil || snap.Result != Done {
		t.Fatalf("snapshot: %+v", snap)
	}
	if git(t, repo, "log", "-1", "--format=%s", snap.Target+"^") != "work of dirty" {
		t.Error("the snapshot does not stand on the branch's commit")
	}
	if git(t, repo, "show", snap.Target+":notes.txt") != "ideas" {
		t.Error("the snapshot lacks the untracked file")
	}
	if worktrees.BranchExists(c, repo, "teamctl/t/dirty") || exists(wts[3].Path) {
		t.Error("clean --force left the dirty worktree or its branch")
	}
	if l, _ := snapshots.List(c, "t"); len(l) != 2 || l[0].Member == l[1].Member {
		t.Errorf("snapshots: %+v, want dirty's and ahead's", l)
	}
	if dir, _ := state.Dir("t"); exists(dir) {
		t.Error("the team's state is left")
	}
}

// TestCleanDeletesOnlyBranchesItsGitConfigSaysItMade: a branch with the
// name teamctl gives a layout member's branch, at the layout's place, is
// still not teamctl's to delete unless its own git config says teamctl made
// it for that member (state.json's created_branch, which anyone can write,
// is not enough): one a person made by hand stays, merged or not, and
// one teamctl made goes.
func TestCleanDeletesOnlyBranchesItsGitConfigSaysItMade(t *testing.T) {
	c := world(t)
	repo := newRepo(t)
	folder := filepath.Join(repo, worktrees.DefaultFolder)
	var wts []state.Worktree
	for _, m := range []string{"made", "byhand", "other"} {
		path := filepath.Join(folder, "t", m)
		owner := "t/" + m
		switch m {
		case "byhand":
			owner = "" // as a person's git worktree add -b makes it
		case "other":
			owner = "u/other" // made by teamctl, for another team
		}
		if _, err := worktrees.Ensure(c, worktrees.Spec{Main: repo, Path: path, Branch: "teamctl/t/" + m, Owner: owner}); err != nil {
			t.Fatal(err)
		}
		wts = append(wts, state.Worktree{Member: m, Path: path, Main: repo, Folder: folder, Branch: "teamctl/t/" + m, Base: "main", CreatedBranch: true})
	}
	layout := teamLayout(t, repo, "t", "made", "byhand", "other")
	if err := state.Save(&state.Team{Team: "t", LayoutPath: layout, Worktrees: wts}); err != nil {
		t.Fatal(err)
	}
	r, err := Run(c, Options{Team: "t"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range r.Actions {
		t.Logf("%s %s: %s %s", a.Step, a.Target, a.Result, a.Detail)
	}
	if worktrees.BranchExists(c, repo, "teamctl/t/made") {
		t.Error("the branch teamctl made was kept")
	}
	for _, b := range []string{"teamctl/t/byhand", "teamctl/t/other"} {
		if !worktrees.BranchExists(c, repo, b) {
			t.Errorf("%s was deleted: its git config does not say teamctl made it for this member", b)
		}
	}
}

// TestCleanForceRemovesEveryDirtyWorktree: with Force, each of several
// worktrees holding work gets its snapshot and is then removed. The
// removals run at the same time, and each waits for its own snapshot only:
// one whose snapshot is planned after another's removal is not kept for it.
func TestCleanForceRemovesEveryDirtyWorktree(t *testing.T) {
	c := world(t)
	repo := newRepo(t)
	folder := filepath.Join(repo, worktrees.DefaultFolder)
	members := []string{"a", "b", "c"}
	var wts []state.Worktree
	for _, m := range members {
		path := filepath.Join(folder, "t", m)
		branch := "teamctl/t/" + m
		if _, err := worktrees.Ensure(c, worktrees.Spec{Main: repo, Path: path, Branch: branch, Owner: "t/" + m}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(path, "notes-"+m+".txt"), []byte("ideas of "+m), 0o644); err != nil {
			t.Fatal(err)
		}
		wts = append(wts, state.Worktree{Member: m, Path: path, Main: repo, Folder: folder, Branch: branch, Base: "main", CreatedBranch: true})
	}
	layout := teamLayout(t, repo, "t", members...)
	if err := state.Save(&state.Team{Team: "t", LayoutPath: layout, Worktrees: wts}); err != nil {
		t.Fatal(err)
	}
	r, err := Run(c, Options{Team: "t", Force: true}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range r.Actions {
		if a.Result != Done {
			t.Errorf("clean --force: %s %s %s: %s", a.Step, a.Target, a.Result, a.Detail)
		}
	}
	for _, w := range wts {
		if exists(w.Path) {
			t.Errorf("worktree %s is still there", w.Path)
		}
	}
	if l, _ := snapshots.List(c, "t"); len(l) != len(members) {
		t.Errorf("snapshots: %d, want %d", len(l), len(members))
	}
}
