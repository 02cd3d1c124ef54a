package team

import (
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
)

// TestStopAndStartWithoutASupervisor: with no supervisor running, stop
// writes the hold into live.json itself (the next supervisor reads it) and
// ends the member's process group with the one stop loop; start lets the
// hold go and relaunches it here, as restart does.
func TestStopAndStartWithoutASupervisor(t *testing.T) {
	f := newFakeWorld(t)
	f.up(f.layout("team.yaml", alpha))
	tm := f.open("alpha")
	r, err := tm.Stop(f.ctx, "sh", 3*time.Second)
	if err != nil || r.Approved || r.Killed || r.WasEnded {
		t.Fatalf("stop: %+v, %v", r, err)
	}
	if !strings.Contains(strings.Join(f.log, "\n"), "end group sh (grace 3s)") {
		t.Errorf("sh's group not ended with the grace given:\n%s", showLog(f.log))
	}
	live, _ := state.ReadLive("alpha")
	if h, held := live.HeldMember("sh"); !held || !h.Stopped || h.Reason != StoppedReason {
		t.Errorf("live.json's hold of sh: %+v, %v", h, held)
	}
	s, err := tm.Status(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range s.Members {
		if m.Name == "sh" && m.State != state.StateExited { // held is the running supervisor's word
			t.Errorf("sh in status: %s %q", m.State, m.Reason)
		}
	}
	if evs := f.events("alpha", state.EventHeld); len(evs) != 1 || evs[0].Member != "sh" {
		t.Errorf("held events: %+v", evs)
	}
	if _, err := tm.Stop(f.ctx, "sh", time.Second); err == nil || !strings.Contains(err.Error(), "sh is stopped already") {
		t.Errorf("a second stop: %v", err)
	}
	if _, err := tm.Start(f.ctx, "worker"); err == nil || !strings.Contains(err.Error(), "worker is running") {
		t.Errorf("start of a running member: %v", err)
	}

	pid, err := tm.Start(f.ctx, "sh")
	if err != nil || pid == 0 {
		t.Fatalf("start: %d, %v", pid, err)
	}
	live, _ = state.ReadLive("alpha")
	if _, held := live.HeldMember("sh"); held {
		t.Errorf("sh still held after start")
	}
	if evs := f.events("alpha", state.EventReleased); len(evs) != 1 || evs[0].Member != "sh" {
		t.Errorf("released events: %+v", evs)
	}
	if st := f.state("alpha"); func() bool { m, _ := st.Member("sh"); return m.PID != pid }() {
		t.Errorf("sh's new run is not on record")
	}
}
