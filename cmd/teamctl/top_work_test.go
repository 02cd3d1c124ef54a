package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestTopShowsDiffsAndMergesAMembersWork runs `teamctl top` in a real
// terminal (80x24) on a team whose member has a worktree with a commit of its
// own: the CHANGES column counts it, c shows its diff in the pager and q
// there comes back to the table, m asks first and y lands the member's branch
// in main (real git, the main checkout brought forward).
func TestTopShowsDiffsAndMergesAMembersWork(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	repo := gitRepo(t, e, "repo")
	e.MustRun("up", standInLayout(e, "team.yaml", "team: work\nroot: repo\nlead: {}\nmembers:\n  - name: mate\n    command: [sleep, \"600\"]\n    worktree: true\n"))
	wt := filepath.Join(repo, ".teamctl", "worktrees", "work", "mate")
	os.WriteFile(filepath.Join(wt, "feature.go"), []byte("package main\n\n// the-member-wrote-this\n"), 0o644)
	gitIn(t, wt, "add", "feature.go")
	gitIn(t, wt, "commit", "-q", "-m", "a feature")
	branch := strings.TrimSpace(gitIn(t, wt, "rev-parse", "HEAD"))

	script := fmt.Sprintf(`PAGER='less -R'; export PAGER; unset LESS; %q top --team work; echo "TOP-EXIT=$?"; exec cat`, e.Bin)
	out, err := e.Tmux(viewerSocket, "new-session", "-d", "-s", "v", "-x", "80", "-y", "24", "-c", e.Dir, "-P", "-F", "#{pane_id}", "sh", "-c", script)
	if err != nil {
		t.Fatalf("start the viewer: %v %s", err, out)
	}
	v := &viewer{t: t, e: e, pane: strings.TrimSpace(out)}
	row := func(s, name string) string {
		for _, r := range tableRows(s) {
			if strings.HasPrefix(r[2:], name+" ") {
				return r
			}
		}
		return ""
	}
	v.wait("mate's changes counted", func(s string) bool {
		return strings.Contains(s, "CHANGES") && strings.Contains(row(s, "mate"), " 1 +3 −0")
	})
	v.keys("j") // below the lead
	v.wait("mate selected", func(s string) bool { return strings.HasPrefix(row(s, "mate"), ">") })

	v.keys("c")
	v.wait("mate's diff in the pager", func(s string) bool { return strings.Contains(s, "+// the-member-wrote-this") })
	v.keys("q")
	v.wait("back from the diff", func(s string) bool { return strings.Contains(s, "back from mate's diff") })

	v.keys("m")
	v.wait("the merge asked first", func(s string) bool {
		return strings.Contains(s, "merge mate's teamctl/work/mate into its base? y merges it")
	})
	if got := strings.TrimSpace(gitIn(t, repo, "rev-parse", "main")); got == branch {
		t.Fatalf("merged before y")
	}
	v.keys("y")
	v.wait("the merge's outcome", func(s string) bool { return strings.Contains(s, "merged mate's teamctl/work/mate into main") })
	gitIn(t, repo, "merge-base", "--is-ancestor", branch, "main") // fails the test unless main has it
	if b, err := os.ReadFile(filepath.Join(repo, "feature.go")); err != nil || !strings.Contains(string(b), "the-member-wrote-this") {
		t.Errorf("the main checkout was not brought forward: %q %v", b, err)
	}
	v.keys("q")
	v.wait("top's exit", func(s string) bool { return strings.Contains(s, "TOP-EXIT=0") })
	e.MustRun("down", "--team", "work", "--now")
}
