package main_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestUpAndCleanNeverBothAct: `teamctl up` and `teamctl clean TEAM` of a
// team that is down, as two processes, round after round (started at once,
// or up once clean has shown its plan):
// whichever takes the team's lock first acts alone, and the other acts on
// what it left. So afterwards the team either runs, with its record
// (status knows it), its supervisor and its member's worktree, or is gone
// whole (no server, no record, no worktree) — never members running with
// no record, or in a worktree clean removed.
func TestUpAndCleanNeverBothAct(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	repo := gitRepo(t, e, "repo")
	layout := standInLayout(e, "team.yaml", "team: race\nroot: repo\nmembers:\n  - name: mate\n    command: [sleep, \"600\"]\n    worktree: true\n")
	wt := filepath.Join(repo, ".teamctl", "worktrees", "race", "mate")
	record := filepath.Join(e.StateHome, "teamctl", "race", "state.json")
	start := func(args ...string) (*exec.Cmd, *safeBuffer) {
		cmd := exec.Command(e.Bin, args...)
		out := &safeBuffer{}
		cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = e.Environ(), e.Work, out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, out
	}
	rounds := 4
	if testing.Short() {
		rounds = 2
	}
	for round := range rounds {
		e.MustRun("up", layout)
		e.MustRun("down", "--team", "race", "--now")
		cl, clOut := start("clean", "race", "--yes")
		if round%2 == 1 {
			// clean has planned (a team that is down) before up starts:
			// most often clean then takes the lock first.
			testenv.Eventually(t, time.Minute, "clean's plan", func() (bool, string) {
				return strings.Contains(clOut.String(), "plan:"), clOut.String()
			})
		}
		up, upOut := start("up", layout)
		clErr, upErr := cl.Wait(), up.Wait()
		t.Logf("round %d: clean: %v\n%s\nup: %v\n%s", round, clErr, clOut, upErr, upOut)
		if clErr != nil || upErr != nil {
			t.Errorf("round %d: clean: %v, up: %v", round, clErr, upErr)
		}
		panes, lerr := e.Tmux("teamctl-race", "list-panes", "-a", "-F", "#{pane_id}")
		running := lerr == nil && panes != ""
		switch st := e.Run("status", "--team", "race"); {
		case running && (st.Code != 0 || !exists(record) || !exists(wt)):
			t.Fatalf("round %d: the team's server runs (panes %q), but status exits %d, its record is there: %v, its worktree: %v\n%s%s",
				round, panes, st.Code, exists(record), exists(wt), st.Stdout, st.Stderr)
		case !running && (exists(record) || exists(wt)):
			t.Fatalf("round %d: no server, but the record is there: %v, the worktree: %v", round, exists(record), exists(wt))
		}
		if running {
			e.MustRun("down", "--team", "race", "--now")
		}
	}
}
