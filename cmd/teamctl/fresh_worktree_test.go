package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestUpFreshKeepsAnOldWorktreeAsItIs: `up --fresh` over a lost team (and
// `up` after `down`, which starts anew too) starts new sessions but reuses a
// member's old worktree as it is: its commits, staged, unstaged and untracked
// files stay byte for byte, nothing is reset or removed, so there is nothing
// to keep in a snapshot and none is taken.
func TestUpFreshKeepsAnOldWorktreeAsItIs(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	repo := gitRepo(t, e, "repo")
	layout := standInLayout(e, "team.yaml", "team: fresh\nroot: repo\nmembers:\n  - name: mate\n    worktree: true\n")
	e.MustRun("up", layout)
	wt := filepath.Join(repo, ".teamctl", "worktrees", "fresh", "mate")

	// Work that is not merged: a commit, a staged file, an unstaged change
	// and an untracked file with an awkward name.
	os.WriteFile(filepath.Join(wt, "feature.go"), []byte("package main\n"), 0o644)
	gitIn(t, wt, "add", "feature.go")
	gitIn(t, wt, "commit", "-q", "-m", "half-done feature")
	os.WriteFile(filepath.Join(wt, "staged.txt"), []byte("staged\n"), 0o644)
	gitIn(t, wt, "add", "staged.txt")
	os.WriteFile(filepath.Join(wt, "feature.go"), []byte("package main\n\nfunc f() {}\n"), 0o644)
	untracked := filepath.Join(wt, "notes \"v2\"\n.txt")
	os.WriteFile(untracked, []byte("ideas\x00\xff"), 0o644)
	head := gitIn(t, wt, "rev-parse", "HEAD")
	status := gitIn(t, wt, "status", "--porcelain", "-z")

	check := func(when, out string) {
		t.Helper()
		if got := gitIn(t, wt, "rev-parse", "HEAD"); got != head {
			t.Errorf("%s: the worktree's HEAD is %s, was %s", when, got, head)
		}
		if got := gitIn(t, wt, "status", "--porcelain", "-z"); got != status {
			t.Errorf("%s: the worktree's status is %q, was %q", when, got, status)
		}
		if b, err := os.ReadFile(untracked); err != nil || string(b) != "ideas\x00\xff" {
			t.Errorf("%s: the untracked file is %q (%v)", when, b, err)
		}
		if b, _ := os.ReadFile(filepath.Join(wt, "feature.go")); string(b) != "package main\n\nfunc f() {}\n" {
			t.Errorf("%s: the unstaged change is gone: %q", when, b)
		}
		if refs := gitIn(t, repo, "for-each-ref", "refs/teamctl/"); refs != "" || strings.Contains(out, "snapshot") {
			t.Errorf("%s: a snapshot of a worktree reused as it is: %q\n%s", when, refs, out)
		}
		if strings.Contains(out, "(branch ") {
			t.Errorf("%s: the worktree was made again:\n%s", when, out)
		}
	}
	reboot(t, e, "fresh")
	r := e.MustRun("up", layout, "--fresh")
	check("up --fresh", r.Stdout+r.Stderr)
	e.MustRun("down", "--team", "fresh", "--now")
	r = e.MustRun("up", layout)
	check("up after down", r.Stdout+r.Stderr)
	e.MustRun("down", "--team", "fresh", "--now")
}
