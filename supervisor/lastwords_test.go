package supervisor

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
)

// manyLines are n lines "line 1" … "line n".
func manyLines(n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("line %d", i))
	}
	return out
}

// lastWords are the member's last words as the team's folder has them.
func (w *world) lastWords(member string) *state.LastWords {
	w.t.Helper()
	lw, err := state.ReadLastWords("decide", member)
	if err != nil {
		w.t.Fatal(err)
	}
	return lw
}

// TestAnExitKeepsTheLastWordsARestartKeepsThem: a member's exit keeps the
// last lines of its pane (the last 200 of its history, then its screen,
// without the blank rows and tmux's "Pane is dead" line), with its pane and
// exit code; the restart that replaces the pane leaves them, and the next
// run's exit replaces them with its own.
func TestAnExitKeepsTheLastWordsARestartKeepsThem(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"web", state.RoleProcess, "on-failure"})
	w.printed("%1", manyLines(300), "starting\nLAST-WORDS-XYZ\n\n\n")
	w.exit("web", "3", "")
	lw := w.lastWords("web")
	if lw == nil {
		t.Fatal("no last words kept at the exit")
	}
	want := append(manyLines(300)[100:], "starting", "LAST-WORDS-XYZ")
	if !slices.Equal(lw.Lines, want) {
		t.Errorf("kept %d lines ending %q, want the last 200 of history and the screen, ending %q", len(lw.Lines), lw.Tail(3), want[len(want)-3:])
	}
	if lw.Pane != "%1" || lw.How() != "exit 3" || lw.PID == 0 {
		t.Errorf("kept of pane %s, pid %d, %s; want %%1, its pid, exit 3", lw.Pane, lw.PID, lw.How())
	}

	w.advance(time.Minute)
	if n := len(w.events(state.EventRestart, "web")); n != 1 || w.paneOf("web") == "%1" {
		t.Fatalf("%d restarts; web in %s", n, w.paneOf("web"))
	}
	if lw := w.lastWords("web"); lw == nil || lw.Pane != "%1" || lw.Tail(1)[0] != "LAST-WORDS-XYZ" {
		t.Errorf("after the restart: %+v", lw)
	}

	pane := w.paneOf("web")
	w.printed(pane, nil, "second run\nboom")
	w.exit("web", "4", "")
	if lw := w.lastWords("web"); lw == nil || lw.Pane != pane || lw.How() != "exit 4" || !slices.Equal(lw.Lines, []string{"second run", "boom"}) {
		t.Errorf("the second run's words: %+v", lw)
	}
}

// TestARestartWaitsForTheLastWords: a restart due while the capture of the
// last words has not been taken yet (a busy capture worker) waits for it:
// the dead pane is replaced only once its words are kept, so they are
// never lost with it, and then at once.
func TestARestartWaitsForTheLastWords(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"web", state.RoleProcess, "on-failure"})
	w.printed("%1", nil, "panic: the last straw")
	w.holdWords = true
	w.exit("web", "2", "")
	w.advance(10 * time.Second) // well past the first backoff (1s)
	if len(w.srv.relaunched) != 0 || w.paneOf("web") != "%1" {
		t.Fatalf("the dead pane was replaced before its last words were kept")
	}
	w.takeWords()
	lw := w.lastWords("web")
	if lw == nil || lw.Pane != "%1" || !slices.Equal(lw.Lines, []string{"panic: the last straw"}) {
		t.Errorf("kept %+v", lw)
	}
	if len(w.srv.relaunched) != 1 || len(w.events(state.EventRestart, "web")) != 1 {
		t.Errorf("not restarted once its words were kept (%d relaunches)", len(w.srv.relaunched))
	}
}

// TestARestartTakesTheLastWordsWhenTheirCaptureFailed: the control client's
// capture failed (replaced, slow): the restart reads the dead pane itself
// before it replaces it.
func TestARestartTakesTheLastWordsWhenTheirCaptureFailed(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"web", state.RoleProcess, "on-failure"})
	w.printed("%1", []string{"earlier"}, "Error: EADDRINUSE")
	w.srv.historyFails = true
	w.exit("web", "1", "")
	if lw := w.lastWords("web"); lw != nil {
		t.Fatalf("kept although the capture failed: %+v", lw)
	}
	w.advance(time.Minute)
	lw := w.lastWords("web")
	if lw == nil || lw.Pane != "%1" || !slices.Equal(lw.Lines, []string{"earlier", "Error: EADDRINUSE"}) || lw.How() != "exit 1" {
		t.Errorf("kept %+v", lw)
	}
	if len(w.srv.relaunched) != 1 {
		t.Errorf("%d relaunches", len(w.srv.relaunched))
	}
}

// TestAFailedMemberKeepsItsLastRunsWords: a crash loop's last run, the one
// that made the member failed, is the one whose words are kept.
func TestAFailedMemberKeepsItsLastRunsWords(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"web", state.RoleProcess, ""})
	for i := 0; i <= maxExits; i++ {
		w.printed(w.paneOf("web"), nil, fmt.Sprintf("run %d\ncrashed", i))
		w.exit("web", "3", "")
		w.advance(20 * time.Second) // past the longest backoff (16s), all within the crash-loop window
	}
	if got := w.live("web"); got.State != state.StateFailed {
		t.Fatalf("after %d exits: %+v", maxExits+1, got)
	}
	if lw := w.lastWords("web"); lw == nil || lw.Pane != w.paneOf("web") || lw.Lines[0] != fmt.Sprintf("run %d", maxExits) {
		t.Errorf("kept %+v, want run %d's", lw, maxExits)
	}
}
