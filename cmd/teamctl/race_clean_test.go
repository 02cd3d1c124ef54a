package main_test

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestUpAndCleanNeverBothAct: `teamctl up` and `teamctl clean TEAM` of a
// team that is down, started at once as two processes, round after round:
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
	start := func(args ...string) (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(e.Bin, args...)
		var out bytes.Buffer
		cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = e.Environ(), e.Work, &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &out
	}
	rounds := 4
	if testing.Short() {
		rounds = 2
	}
	for round := range rounds {
		e.MustRun("up", layout)
		e.MustRun("down", "--team", "race", "--now")
		cl, clOut := start("clean", "race", "--yes")
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
