package worktrees

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// repo makes a git repository with one commit on main and returns its folder.
func repo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "user.email", "t@example.invalid"},
		{"config", "user.name", "t"},
		{"commit", "-q", "--allow-empty", "-m", "first"},
	} {
		run(t, dir, args...)
	}
	return dir
}

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

func TestEnsureInspectRemove(t *testing.T) {
	t.Parallel()
	main := repo(t)
	c := ctx(t)
	wt := filepath.Join(main, ".teamctl", "worktrees", "t", "a")
	made, err := Ensure(c, Spec{Main: main, Path: wt, Branch: "teamctl/t/a"})
	if err != nil {
		t.Fatal(err)
	}
	if !made.Created || !made.CreatedBranch || made.Base != "main" {
		t.Errorf("first Ensure: %+v", made)
	}
	if again, err := Ensure(c, Spec{Main: main, Path: wt, Branch: "teamctl/t/a"}); err != nil || again.Created {
		t.Errorf("second Ensure: %+v, %v (want the worktree reused)", again, err)
	}
	r, err := FindRepo(c, wt)
	if err != nil || !samePath(r.Main, main) || !samePath(r.Top, wt) {
		t.Errorf("FindRepo = %+v, %v", r, err)
	}
	if m, err := MainOf(wt); err != nil || !samePath(m, main) {
		t.Errorf("MainOf = %q, %v", m, err)
	}

	if l, err := Inspect(c, wt, "main"); err != nil || !l.Empty() {
		t.Fatalf("clean worktree: %+v, %v", l, err)
	}
	os.WriteFile(filepath.Join(wt, "notes.txt"), []byte("x"), 0o644)
	l, err := Inspect(c, wt, "main")
	if err != nil || len(l.Untracked) != 1 || l.Untracked[0] != "notes.txt" {
		t.Fatalf("untracked: %+v, %v", l, err)
	}
	run(t, wt, "add", "notes.txt")
	run(t, wt, "-c", "user.email=t@x", "-c", "user.name=t", "commit", "-q", "-m", "work in progress")
	os.WriteFile(filepath.Join(wt, "notes.txt"), []byte("y"), 0o644)
	l, err = Inspect(c, wt, "main")
	if err != nil || len(l.Changed) != 1 || len(l.Commits) != 1 || !strings.Contains(l.Commits[0], "work in progress") {
		t.Fatalf("changed + commit: %+v, %v", l, err)
	}
	if s := l.String(); !strings.Contains(s, "uncommitted changes in notes.txt") || !strings.Contains(s, "not merged into main") {
		t.Errorf("String() = %q", s)
	}
	if bl, err := BranchLoss(c, main, "teamctl/t/a", "main"); err != nil || len(bl.Commits) != 1 {
		t.Errorf("BranchLoss = %+v, %v", bl, err)
	}
	if bl, err := BranchLoss(c, main, "teamctl/t/a", ""); err != nil || len(bl.Commits) != 1 {
		t.Errorf("BranchLoss without base = %+v, %v", bl, err)
	}

	if err := Remove(c, main, wt, false); err == nil {
		t.Fatal("git removed a worktree with changes without --force")
	}
	if err := Remove(c, main, wt, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wt); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("worktree still there: %v", err)
	}
	if err := Remove(c, main, wt, false); !errors.Is(err, ErrNotWorktree) {
		t.Errorf("second Remove: %v, want ErrNotWorktree", err)
	}
	if err := DeleteBranches(c, main, "teamctl/t/a"); err != nil || BranchExists(c, main, "teamctl/t/a") {
		t.Errorf("DeleteBranch: %v", err)
	}
}

func TestEnsureRefusesAForeignFolder(t *testing.T) {
	t.Parallel()
	main := repo(t)
	wt := filepath.Join(t.TempDir(), "a")
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(wt, "mine.txt"), []byte("x"), 0o644)
	_, err := Ensure(ctx(t), Spec{Main: main, Path: wt, Branch: "b"})
	if err == nil || !strings.Contains(err.Error(), "not a worktree") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(wt, "mine.txt")); string(b) != "x" {
		t.Error("the folder's file changed")
	}
}

func TestEnsureBadBase(t *testing.T) {
	t.Parallel()
	main := repo(t)
	_, err := Ensure(ctx(t), Spec{Main: main, Path: filepath.Join(main, "w"), Branch: "b", Base: "nope"})
	if err == nil || !strings.Contains(err.Error(), `base "nope"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestExclude(t *testing.T) {
	t.Parallel()
	main := repo(t)
	common := filepath.Join(main, ".git")
	for range 2 {
		if err := Exclude(common, "/.teamctl/"); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(common, "info", "exclude"))
	if strings.Count(string(b), "/.teamctl/\n") != 1 {
		t.Errorf("exclude:\n%s", b)
	}
	os.MkdirAll(filepath.Join(main, ".teamctl", "x"), 0o755)
	os.WriteFile(filepath.Join(main, ".teamctl", "x", "f"), nil, 0o644)
	if out := run(t, main, "status", "--porcelain"); out != "" {
		t.Errorf("status shows teamctl's folder: %q", out)
	}
}

// Linked finds a linked worktree of a main checkout as git lists it, with
// its branch or detached HEAD; the main checkout, another repository, a
// worktree asked of the wrong repository and a plain folder are not one.
func TestLinked(t *testing.T) {
	t.Parallel()
	main, other := repo(t), repo(t)
	c := ctx(t)
	onBranch := filepath.Join(t.TempDir(), "on-branch")
	detached := filepath.Join(t.TempDir(), "detached")
	run(t, main, "worktree", "add", "-q", "-b", "worktree-x", onBranch)
	run(t, main, "worktree", "add", "-q", "--detach", detached)
	if e, err := Linked(c, main, onBranch); err != nil || e.Branch != "worktree-x" || e.Detached || len(e.Head) != 40 {
		t.Errorf("on a branch: %+v, %v", e, err)
	}
	if e, err := Linked(c, main, detached); err != nil || e.Branch != "" || !e.Detached {
		t.Errorf("detached: %+v, %v", e, err)
	}
	plain := t.TempDir()
	for name, c2 := range map[string][2]string{
		"the main checkout":             {main, main},
		"another repository":            {main, other},
		"asked of the wrong repository": {other, onBranch},
		"a worktree as main":            {onBranch, detached},
		"a plain folder":                {main, plain},
		"a plain folder as main":        {plain, onBranch},
	} {
		if e, err := Linked(c, c2[0], c2[1]); !errors.Is(err, ErrNotWorktree) {
			t.Errorf("%s: %+v, %v; want ErrNotWorktree", name, e, err)
		}
	}
	if paths, err := Registered(c, main); err != nil || len(paths) != 3 || !samePath(paths[0], main) {
		t.Errorf("Registered: %v, %v", paths, err)
	}
	os.Remove(filepath.Join(detached, ".git"))
	if e, err := Linked(c, main, detached); !errors.Is(err, ErrNotWorktree) {
		t.Errorf("without its .git file: %+v, %v; want ErrNotWorktree", e, err)
	}
}

// GitVersion says which git runs, and ErrNoGit when none is on PATH.
func TestGitVersion(t *testing.T) {
	v, err := GitVersion(context.Background())
	if err != nil || !strings.HasPrefix(v, "git version ") {
		t.Fatalf("GitVersion = %q, %v", v, err)
	}
	t.Setenv("PATH", t.TempDir())
	if v, err := GitVersion(context.Background()); !errors.Is(err, ErrNoGit) {
		t.Errorf("without git on PATH: %q, %v", v, err)
	}
}
