package team

import (
	"strings"
	"testing"

	"github.com/teamctl/teamctl/state"
)

// TestScreen: a running member's screen is its pane's, captured; a member
// whose program ended shows the last lines it printed (its last words, else
// its dead pane's screen), never a blank; a member the team does not have is
// an error that names the team's members.
func TestScreen(t *testing.T) {
	f := newFakeWorld(t)
	f.up(f.layout("team.yaml", alpha))
	srv := f.server("alpha")
	st := f.state("alpha")
	m, _ := st.Member("worker")
	worker := srv.pane(m.Pane)
	srv.screens[worker.ID] = "$ make\nok"
	tm := f.open("alpha")
	got, err := tm.Screen(f.ctx, "worker")
	if err != nil || got != "$ make\nok" {
		t.Fatalf("running worker's screen = %q, %v; want its pane's", got, err)
	}
	f.wantLog("list-panes", "capture-pane -p -J -t "+worker.ID)
	f.log = nil
	if got, err := tm.ScreenInColour(f.ctx, "worker"); err != nil || got != "$ make\nok" {
		t.Fatalf("running worker's screen in colour = %q, %v", got, err)
	}
	f.wantLog("list-panes", "capture-pane -p -e -J -t "+worker.ID) // its colours kept, for drawing

	// Its program ends: the pane is dead, and its last words are kept.
	worker.Dead = true
	if err := state.WriteLastWords("alpha", "worker", state.LastWords{Pane: worker.ID, PID: worker.PID, Lines: []string{"panic: boom", "exit status 2"}}); err != nil {
		t.Fatal(err)
	}
	f.log = nil
	got, err = tm.Screen(f.ctx, "worker")
	if err != nil || got != "panic: boom\nexit status 2" {
		t.Fatalf("ended worker's screen = %q, %v; want its last words", got, err)
	}
	f.wantLog("list-panes")

	// Last words of another run are not this one's: the dead pane shows it.
	if err := state.WriteLastWords("alpha", "worker", state.LastWords{Pane: "%99", PID: 1, Lines: []string{"old run"}}); err != nil {
		t.Fatal(err)
	}
	srv.history[worker.ID] = []string{"segfault"}
	srv.screens[worker.ID] = ""
	got, err = tm.Screen(f.ctx, "worker")
	if err != nil || !strings.Contains(got, "segfault") || strings.Contains(got, "old run") {
		t.Fatalf("dead pane's screen = %q, %v; want what the dead pane shows", got, err)
	}

	if _, err := tm.Screen(f.ctx, "nobody"); err == nil || !strings.Contains(err.Error(), "worker") {
		t.Errorf("a member the team lacks: %v; want an error naming its members", err)
	}
}
