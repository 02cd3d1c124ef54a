package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestMergeAndFinish through the built binary: alice's commit lands on main
// and the person's main checkout, clean, is brought forward; bob's
// uncommitted work is refused, and with --wip his edit of alice's line
// conflicts (nothing moves); finish of a running member, with no terminal
// to ask on, is refused, and with --yes stops it first (as teamctl stop)
// and removes alice's worktree and branch; once the team is down, bob's, landed
// with --squash --wip, leave a snapshot that restore brings back; used
// wrongly, each exits 2.
func TestMergeAndFinish(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	repo, _ := appRepo(t, e)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: rev
root: repo
lead: {}
members:
  - name: alice
    command: [sleep, "1000"]
    worktree: true
  - name: bob
    command: [sleep, "1000"]
    worktree: true
`))
	wt := func(m string) string { return filepath.Join(repo, ".teamctl", "worktrees", "rev", m) }
	editApp(t, wt("alice"), "alice")
	gitIn(t, wt("alice"), "commit", "-q", "-am", "alice's five")
	editApp(t, wt("bob"), "bob")

	r := e.Run("merge", "alice", "bob", "--team", "rev")
	if r.Code != 1 || !strings.Contains(r.Stdout, "landed alice: merged teamctl/rev/alice into main (1 commit(s))") ||
		!strings.Contains(r.Stdout, "  brought forward: "+repo+", where main is checked out\n") ||
		!strings.Contains(r.Stderr, "refused bob: bob has 1 uncommitted file(s) in "+wt("bob")+": commit them there, or --wip") {
		t.Errorf("merge alice bob: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "app.go")); !strings.Contains(string(b), "five by alice") || gitIn(t, repo, "status", "--porcelain") != "" {
		t.Errorf("the main checkout after: %q, status %q", b, gitIn(t, repo, "status", "--porcelain"))
	}
	main := gitIn(t, repo, "rev-parse", "main")
	r = e.Run("merge", "bob", "--wip", "--team", "rev")
	if r.Code != 1 || !strings.Contains(r.Stderr, "would conflict") || !strings.Contains(r.Stderr, "  conflict (contents): app.go\n") || r.Stdout != "" {
		t.Errorf("merge bob --wip: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if gitIn(t, repo, "rev-parse", "main") != main || gitIn(t, wt("bob"), "status", "--porcelain") != " M app.go\n" {
		t.Error("the conflict moved main, or committed bob's work")
	}

	if r := e.Run("finish", "alice", "--team", "rev"); r.Code != 1 || !strings.Contains(r.Stderr, "alice still running") || !strings.Contains(r.Stderr, "--yes stops it first") {
		t.Errorf("finish of a running member, no terminal to ask on: exit %d\n%s", r.Code, r.Stderr)
	}
	// --yes: alice is stopped (as teamctl stop does), then finished.
	r = e.Run("finish", "alice", "--team", "rev", "--json", "--yes")
	if !strings.Contains(r.Stderr, "stopped alice (ended on SIGTERM)") {
		t.Errorf("finish --yes of a running member did not stop it: exit %d\n%s", r.Code, r.Stderr)
	}
	var fin struct {
		Finished []struct {
			Member   string
			Worktree string
			Branch   string `json:"branch_deleted"`
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &fin); err != nil || r.Code != 0 || len(fin.Finished) != 1 || fin.Finished[0].Branch != "teamctl/rev/alice" {
		t.Errorf("finish alice --json: exit %d, %v\n%s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	if exists(wt("alice")) || strings.Contains(gitIn(t, repo, "branch"), "alice") {
		t.Error("alice's worktree or branch is left")
	}

	e.MustRun("down", "--team", "rev", "--now")
	gitIn(t, wt("bob"), "checkout", "--", "app.go")
	os.WriteFile(filepath.Join(wt("bob"), "bob's notes.md"), []byte("kept\n"), 0o644)
	r = e.Run("finish", "bob", "--wip", "--squash", "--team", "rev")
	snap := regexp.MustCompile("`teamctl restore (rev/bob/[0-9TZ]+)` brings it back").FindStringSubmatch(r.Stdout)
	if r.Code != 0 || snap == nil || !strings.Contains(r.Stdout, "  deleted branch teamctl/rev/bob\n") {
		t.Fatalf("finish bob --wip --squash: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	back := filepath.Join(e.Work, "back")
	e.MustRun("restore", snap[1], back)
	if b, err := os.ReadFile(filepath.Join(back, "bob's notes.md")); err != nil || string(b) != "kept\n" {
		t.Errorf("restored: %q, %v", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "bob's notes.md")); string(b) != "kept\n" {
		t.Errorf("main checkout lacks bob's squashed file: %q", b)
	}

	for _, args := range [][]string{{"merge"}, {"finish"}, {"finish", "bob", "--all"}, {"merge", "bob", "--nope"}} {
		if r := e.Run(args...); r.Code != 2 || !strings.Contains(r.Stderr, "see 'teamctl "+args[0]+" --help'") {
			t.Errorf("teamctl %s: exit %d, %s", strings.Join(args, " "), r.Code, r.Stderr)
		}
	}
}
