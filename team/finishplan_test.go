package team

import (
	"os"
	"strings"
	"testing"
)

// TestPlanFinish: what finish would do, read without doing it: a running
// member with a commit is stopped first, its commit merged into its base,
// its worktree removed and the branch teamctl made deleted; one with
// uncommitted work is refused, saying why. Nothing moves.
func TestPlanFinish(t *testing.T) {
	f := newFakeWorld(t)
	repo, wt := reviewTeam(t, f)
	commitIn(t, wt("a"), "a.go", "a\n", "a's work")
	writeT(t, wt("b"), "wip.go", "half done\n")
	dev := revParseT(t, repo, "dev")
	tm := f.open("rev")

	p, err := tm.PlanFinish(f.ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Stop || p.Into != "dev" || p.Commits != 1 || p.Branch != "teamctl/rev/a" || p.Worktree != wt("a") || p.KeptBranch != "" || p.Refusal != "" {
		t.Errorf("a's plan: %+v", p)
	}
	want := []string{
		"stop a first (it runs), as teamctl stop does",
		"merge 1 commit(s) of teamctl/rev/a into dev",
		"remove the worktree " + wt("a") + " (what it would lose is kept in a snapshot first)",
		"delete the branch teamctl/rev/a",
	}
	if got := p.Lines(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("a's plan says\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	p, err = tm.PlanFinish(f.ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Refusal, "1 uncommitted file(s)") || len(p.Lines()) != 1 || !strings.HasPrefix(p.Lines()[0], "refused: ") {
		t.Errorf("b's plan: %+v %q", p, p.Lines())
	}
	if p, err := tm.PlanFinish(f.ctx, "nobody"); err != nil || p.Refusal == "" {
		t.Errorf("a member that is not: %+v, %v", p, err)
	}
	if _, err := os.Stat(wt("a")); err != nil || revParseT(t, repo, "dev") != dev || !strings.Contains(gitT(t, repo, "branch"), "teamctl/rev/a") {
		t.Error("reading the plan moved something")
	}
}

// TestFileDiff: one file's diff of a member's changes, committed or not,
// and only a file its changes list: a path of its own making (another
// member's file, one outside, an option) is refused, not handed to git.
func TestFileDiff(t *testing.T) {
	f := newFakeWorld(t)
	_, wt := reviewTeam(t, f)
	commitIn(t, wt("a"), "a.go", "package a\n", "a's work")
	writeT(t, wt("a"), "app.go", strings.Replace(tenLines, "5\n", "five by a\n", 1))
	writeT(t, wt("a"), "naïve \"x\".txt", "odd\n")
	commitIn(t, wt("b"), "b.go", "b\n", "b's work")
	tm := f.open("rev")

	d, err := tm.FileDiff(f.ctx, "a", "app.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d, "diff --git a/app.go b/app.go\n") || !strings.Contains(d, "\n+five by a\n") || !strings.Contains(d, "\n-5\n") || strings.Contains(d, "a.go b/a.go") || strings.Contains(d, "odd") {
		t.Errorf("app.go's diff:\n%s", d)
	}
	if d, err := tm.FileDiff(f.ctx, "a", "a.go"); err != nil || !strings.Contains(d, "\n+package a\n") || strings.Contains(d, "five") {
		t.Errorf("a.go's diff: %q, %v", d, err)
	}
	if d, err := tm.FileDiff(f.ctx, "a", "naïve \"x\".txt"); err != nil || !strings.Contains(d, "\n+odd\n") {
		t.Errorf("a quoted name's diff: %q, %v", d, err)
	}
	for _, p := range []string{"b.go", "../../etc/passwd", "--output=/tmp/x", "", "src"} {
		if d, err := tm.FileDiff(f.ctx, "a", p); err == nil || !strings.Contains(err.Error(), "is not one of a's changed files") {
			t.Errorf("FileDiff(a, %q) = %q, %v: want refused", p, d, err)
		}
	}
}
