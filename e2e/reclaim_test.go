package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
)

// TestLeadThatCouldNotTakeItsTeamIsRelaunched: a Claude Code lead restarted
// while its team's config is locked (here the test holds Claude Code's lock,
// fresh, from the moment the new lead runs until 4 s later; in the field a
// teammate writing the config on a busy machine) cannot take its team over
// and keeps the passing team it claimed at start-up. The supervisor ends it
// and restarts it (it resumes its conversation), and it takes its own team:
// one team, the same, with no team-moved.
func TestLeadThatCouldNotTakeItsTeamIsRelaunched(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "e2e-reclaim", true, spawning("scout"))
	w.e.MustRun("up", w.teamLayout(spawner("scout"), ""))
	sid := w.teamState().LeadSessionID
	scoutPane := w.waitAdopted("scout", sid)
	w.waitIdentity("after the spawn", sid)
	before, _ := w.status().member("lead")
	scout := w.claudeRunning("scout")
	lock := filepath.Join(w.e.ClaudeDir, "teams", "session-"+sid[:8], "config.json.lock")

	if err := syscall.Kill(before.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The restarted lead, seen in /proc as soon as it runs (status would be
	// too slow: Claude Code takes its team over early in its start-up).
	var next int
	poll(t, wait, "the lead restarted", func() (bool, string) {
		var seen []string
		for _, p := range processesWithHome(w.e.Home) {
			seen = append(seen, p.String())
			if p.PID != before.PID && isBinary(p.PID, p.Argv, w.claude) && flagValue(p.Argv, "--resume") == sid {
				next = p.PID
				return true, ""
			}
		}
		return false, fmt.Sprint(seen)
	})
	if err := os.Mkdir(lock, 0o700); err != nil && !os.IsExist(err) {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	for ctx.Err() == nil { // held fresh, as its holder does
		now := time.Now()
		os.Chtimes(lock, now, now)
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
	cancel()
	os.Remove(lock)
	t.Logf("held Claude Code's lock while lead pid %d started", next)

	w.waitIdentity("after its restart under the lock", sid)
	if m, ok := w.status().member("scout"); !ok || m.Pane != scoutPane || !proc.Alive(scout.PID) {
		t.Errorf("scout after the lead's relaunches: %+v (pid %d alive %v)", m, scout.PID, proc.Alive(scout.PID))
	}
	evs := w.events()
	if n := len(stallsOf(evs, "team-moved", "lead")); n != 0 {
		t.Errorf("%d team-moved events:\n%s", n, eventLines(evs))
	}
}
