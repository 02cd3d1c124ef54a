package owned

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

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// team makes a repository and the layout of team t (members a and b with
// worktrees, plain without), with a's and b's worktrees made as up makes
// them (b's branch by hand, as a person would), and returns the layout's
// path and the records state.json would hold.
func team(t *testing.T) (c context.Context, layout string, a, b state.Worktree) {
	dir := t.TempDir()
	t.Setenv("HOME", filepath.Join(dir, "home"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, v := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(v, "t")
	}
	for _, v := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(v, "t@example.invalid")
	}
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	repo := filepath.Join(dir, "repo")
	os.MkdirAll(repo, 0o755)
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "first")
	layout = filepath.Join(dir, "t.yaml")
	body := "team: t\nroot: " + repo + "\nmembers:\n" +
		"  - {name: a, command: [sleep, \"1\"], worktree: true}\n" +
		"  - {name: b, command: [sleep, \"1\"], worktree: true}\n" +
		"  - {name: plain, command: [sleep, \"1\"]}\n"
	if err := os.WriteFile(layout, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(repo, worktrees.DefaultFolder)
	rec := func(m, owner string) state.Worktree {
		path := filepath.Join(folder, "t", m)
		branch := "teamctl/t/" + m
		if _, err := worktrees.Ensure(c, worktrees.Spec{Main: repo, Path: path, Branch: branch, Owner: owner}); err != nil {
			t.Fatal(err)
		}
		return state.Worktree{Member: m, Path: path, Main: repo, Folder: folder, Branch: branch, Base: "main", CreatedBranch: true}
	}
	return c, layout, rec("a", "t/a"), rec("b", "")
}

// TestCheckPlace: a worktree record is honoured only for a member of the
// layout the layout gives a worktree, at the place the layout and teamctl
// put it; whatever state.json says besides.
func TestCheckPlace(t *testing.T) {
	c, layout, a, _ := team(t)
	st := &state.Team{Team: "t", LayoutPath: layout}
	edit := func(f func(w *state.Worktree)) state.Worktree { w := a; f(&w); return w }
	for _, tc := range []struct {
		name   string
		st     *state.Team
		w      state.Worktree
		refuse string // "": honoured
	}{
		{"teamctl's", st, a, ""},
		{"its folder recorded elsewhere", st, edit(func(w *state.Worktree) { w.Folder = "/" }), ""}, // the layout's folder counts, not the record's
		{"the main checkout", st, edit(func(w *state.Worktree) { w.Path = w.Main }), "not where the layout puts a's worktree"},
		{"another repository", st, edit(func(w *state.Worktree) { w.Main = t.TempDir() }), "not where the layout puts a's worktree"},
		{"no member of the layout", st, edit(func(w *state.Worktree) { w.Member = "mallory" }), `"mallory", who is not a member of the layout`},
		{"a member with no worktree", st, edit(func(w *state.Worktree) { w.Member = "plain" }), "gives plain no worktree"},
		{"a member's place, another's name", st, edit(func(w *state.Worktree) { w.Member = "b" }), "not where the layout puts b's worktree"},
		{"no layout", &state.Team{Team: "t", LayoutPath: layout + ".gone"}, a, "the team's layout cannot be read"},
	} {
		err := CheckPlace(c, "t", tc.st, tc.w)
		switch {
		case tc.refuse == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.refuse != "" && (err == nil || !strings.Contains(err.Error(), tc.refuse)):
			t.Errorf("%s: %v, want a refusal saying %q", tc.name, err, tc.refuse)
		}
	}
}

// TestTeamctlPlace: honoured by the layout, a record must still be at
// <folder>/<team>/<member>, with an absolute main checkout and a member
// name that is a name.
func TestTeamctlPlace(t *testing.T) {
	_, _, a, _ := team(t)
	if root, err := TeamctlPlace("t", a); err != nil || root != filepath.Join(a.Folder, "t") {
		t.Errorf("teamctl's: %q, %v", root, err)
	}
	for name, w := range map[string]state.Worktree{
		"another team's folder":       {Member: "a", Path: filepath.Join(a.Folder, "u", "a"), Main: a.Main, Folder: a.Folder},
		"a relative main":             {Member: "a", Path: a.Path, Main: "repo", Folder: a.Folder},
		"a member that is a path":     {Member: "../a", Path: a.Path, Main: a.Main, Folder: a.Folder},
		"the main checkout as folder": {Member: "a", Path: filepath.Join(a.Main, "t", "a"), Main: a.Main, Folder: a.Main},
	} {
		if _, err := TeamctlPlace("t", w); err == nil {
			t.Errorf("%s: honoured", name)
		}
	}
}

// TestOwnBranch: a branch is teamctl's to delete only when its git config
// says teamctl made it for that member of that team; state.json's
// created_branch, branch name or base decide nothing.
func TestOwnBranch(t *testing.T) {
	c, layout, a, b := team(t)
	st := &state.Team{Team: "t", LayoutPath: layout}
	if err := OwnBranch(c, "t", st, a); err != nil {
		t.Errorf("the branch teamctl made for a: %v", err)
	}
	if err := OwnBranch(c, "t", st, b); err == nil || !strings.Contains(err.Error(), "does not say teamctl made it for t/b") {
		t.Errorf("a branch made by hand: %v", err)
	}
	if err := OwnBranch(c, "u", st, a); err == nil {
		t.Error("a branch made for another team's member is owned")
	}
	renamed := a
	renamed.Branch = "main"
	if err := OwnBranch(c, "t", st, renamed); err == nil || !strings.Contains(err.Error(), "not the name teamctl gives a's branch (teamctl/t/a)") {
		t.Errorf("a record naming another branch: %v", err)
	}
	ownBase := a
	ownBase.Base = a.Branch
	if err := OwnBranch(c, "t", st, ownBase); err == nil || !strings.Contains(err.Error(), "its own base") {
		t.Errorf("a branch recorded as its own base: %v", err)
	}
	if base, err := Branch(c, "t", a, a.Branch); err != nil || base != "main" {
		t.Errorf("Branch = %q, %v; want the base teamctl recorded, main", base, err)
	}
}
