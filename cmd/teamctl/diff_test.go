package main_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/teamctl/teamctl/internal/testenv"
)

// appRepo is gitRepo's repository with app.go, ten lines, committed on
// main: the file the review tests' members edit, and its lines.
func appRepo(t *testing.T, e *testenv.Env) (repo, lines string) {
	t.Helper()
	repo = gitRepo(t, e, "repo")
	lines = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	os.WriteFile(filepath.Join(repo, "app.go"), []byte(lines), 0o644)
	gitIn(t, repo, "add", "app.go")
	gitIn(t, repo, "commit", "-q", "-m", "app")
	return repo, lines
}

// editApp has who change app.go's line 5 in the worktree dir, uncommitted.
func editApp(t *testing.T, dir, who string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "app.go"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app.go"), []byte(strings.Replace(string(b), "5\n", "five by "+who+"\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDiffAndConflicts: two members whose worktrees edit the same lines of
// one file, uncommitted: `teamctl conflicts` names both and the file and
// exits 1; `teamctl diff --stat` shows each member's files and the lead's
// root (the person's own uncommitted edit there) once; nothing of any
// checkout changes; on a terminal diff goes through $PAGER, coloured; used
// wrongly, each exits 2.
func TestDiffAndConflicts(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	repo, _ := appRepo(t, e)
	os.WriteFile(filepath.Join(repo, "src", "main.go"), []byte("package main // a person's edit\n"), 0o644)
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
	os.WriteFile(filepath.Join(wt("alice"), "notes by alice.md"), []byte("plan\n"), 0o644)
	editApp(t, wt("bob"), "bob")
	before := map[string]string{}
	for _, d := range []string{repo, wt("alice"), wt("bob")} {
		before[d] = gitIn(t, d, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	}

	r := e.Run("conflicts", "--team", "rev")
	if r.Code != 1 || !strings.Contains(r.Stdout, "alice and bob: conflict in app.go (contents)\n") || r.Stderr != "" {
		t.Errorf("conflicts: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	r = e.Run("conflicts", "--team", "rev", "--json")
	var c struct {
		Pairs []struct {
			Members   []string `json:"members"`
			Conflicts []struct{ Path, Kind string }
		} `json:"pairs"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &c); err != nil || r.Code != 1 || len(c.Pairs) != 1 || strings.Join(c.Pairs[0].Members, " ") != "alice bob" || len(c.Pairs[0].Conflicts) != 1 || c.Pairs[0].Conflicts[0].Path != "app.go" {
		t.Errorf("conflicts --json: exit %d, %v\n%s", r.Code, err, r.Stdout)
	}

	r = e.Run("diff", "--stat", "--team", "rev")
	for _, want := range []string{
		"alice: on teamctl/rev/alice, 2 uncommitted files since main\n  app.go            | 2 +-\n  notes by alice.md | 1 +\n",
		"bob: on teamctl/rev/bob, 1 uncommitted file since main\n  app.go | 2 +-\n",
		"lead: 1 uncommitted file\n", "  src/main.go | 2 +-\n",
		"team rev: 4 files changed, 4 insertions(+), 3 deletions(-)\n",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("diff --stat lacks %q:\n%s%s", want, r.Stdout, r.Stderr)
		}
	}
	if r.Code != 0 || strings.Count(r.Stdout, "src/main.go") != 1 {
		t.Errorf("diff --stat: exit %d, the root's file not once:\n%s", r.Code, r.Stdout)
	}
	if r := e.Run("diff", "bob", "--team", "rev"); r.Code != 0 || !strings.Contains(r.Stdout, "-5\n+five by bob\n") || strings.Contains(r.Stdout, "alice") {
		t.Errorf("diff bob: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, d := range []string{repo, wt("alice"), wt("bob")} {
		if after := gitIn(t, d, "status", "--porcelain=v1", "-z", "--untracked-files=all"); after != before[d] {
			t.Errorf("%s changed: %q → %q", d, before[d], after)
		}
	}

	paged := diffOnATerminal(t, e, "diff", "alice", "--team", "rev")
	if !strings.Contains(paged, "\x1b[1;33m=== alice: on teamctl/rev/alice") || !strings.Contains(paged, "\x1b[32m+five by alice\x1b[0m") {
		t.Errorf("what the pager got on a terminal:\n%q", paged)
	}

	for _, c := range []struct{ args []string }{
		{[]string{"diff", "--stat", "--name-only"}}, {[]string{"diff", "--color", "maybe"}}, {[]string{"conflicts", "extra"}},
	} {
		if r := e.Run(c.args...); r.Code != 2 || !strings.Contains(r.Stderr, "see 'teamctl "+c.args[0]+" --help'") {
			t.Errorf("teamctl %s: exit %d, %s", strings.Join(c.args, " "), r.Code, r.Stderr)
		}
	}
}

// diffOnATerminal runs teamctl with its output on a terminal and $PAGER a
// command that keeps what it reads, and returns that.
func diffOnATerminal(t *testing.T, e *testenv.Env, args ...string) string {
	t.Helper()
	got := filepath.Join(e.Work, "paged")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, args...)
	cmd.Env = append(e.Environ(), "TERM=xterm", "PAGER=cat > '"+got+"'")
	cmd.Dir = e.Work
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	screen, _ := io.ReadAll(ptmx) // until teamctl and its pager close the terminal
	if err := cmd.Wait(); err != nil {
		t.Fatalf("teamctl %s on a terminal: %v\n%s", strings.Join(args, " "), err, screen)
	}
	b, err := os.ReadFile(got)
	if err != nil {
		t.Fatalf("no pager ran: %v; the terminal showed:\n%s", err, screen)
	}
	return string(b)
}
