package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestCleanGitCommands: `teamctl clean` of a team that is down, whose members'
// branches are merged, asks git little beyond a `git worktree remove` a
// worktree (issue 33; TEAMCTL_TRACE prints each git command it runs, as
// bench/clean -v shows): with no up or down holding the team's lock it plans
// once (one `git worktree list`), and a branch merged into its base, a
// branch that stays, gets no `git log` of its own. A worktree holding an
// untracked file is still refused and kept with it, among the others removed
// at the same time.
func TestCleanGitCommands(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	repo := gitRepo(t, e, "repo")
	const n = 4
	var b strings.Builder
	b.WriteString("team: gc\nroot: repo\nmembers:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - name: m%d\n    command: [sleep, \"600\"]\n    worktree: true\n", i)
	}
	layout := standInLayout(e, "team.yaml", b.String())
	e.MustRun("up", layout)
	e.MustRun("down", "--team", "gc", "--now")
	wt := func(i int) string { return filepath.Join(repo, ".teamctl", "worktrees", "gc", fmt.Sprintf("m%d", i)) }
	notes := filepath.Join(wt(2), "notes.txt")
	if err := os.WriteFile(notes, []byte("ideas"), 0o644); err != nil {
		t.Fatal(err)
	}

	e.Extra = append(e.Extra, "TEAMCTL_TRACE=1")
	res := e.Run("clean", "gc")
	t.Logf("clean: exit %d\n%s\n%s", res.Code, res.Stdout, res.Stderr)
	if res.Code != 1 {
		t.Errorf("clean with a worktree refused: exit %d, want 1", res.Code)
	}
	count := map[string]int{}
	for _, line := range strings.Split(res.Stderr, "\n") {
		if rest, ok := strings.CutPrefix(line, "trace git "); ok {
			f := strings.Fields(rest)
			count[strings.Join(f[:min(2, len(f))], " ")]++
		}
	}
	t.Logf("git commands: %v", count)
	if count["worktree list"] != 1 {
		t.Errorf("clean ran git worktree list %d times, want 1 (one plan)", count["worktree list"])
	}
	if count["log --format=%h"] != 0 {
		t.Errorf("clean ran git log %d times for branches merged into main, want 0", count["log --format=%h"])
	}
	if count["worktree remove"] != n {
		t.Errorf("clean ran git worktree remove %d times, want %d", count["worktree remove"], n)
	}
	for i := range n {
		if i == 2 {
			if !exists(notes) || !strings.Contains(res.Stdout, "notes.txt") {
				t.Errorf("the worktree holding notes.txt was removed, or its refusal does not name it")
			}
			continue
		}
		if exists(wt(i)) {
			t.Errorf("worktree %s is still there", wt(i))
		}
	}
	if br := gitIn(t, repo, "branch", "--list", "--format=%(refname:short)", "teamctl/gc/*"); strings.TrimSpace(br) != "teamctl/gc/m2" {
		t.Errorf("branches left: %q, want only teamctl/gc/m2 (its worktree stays)", br)
	}
}
