package supervisor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

func TestHostBackoff(t *testing.T) {
	t.Parallel()
	var got []time.Duration
	for a := 1; a <= 6; a++ {
		got = append(got, hostBackoff(a))
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second, 8 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("backoff %v, want %v", got, want)
		}
	}
}

// TestHostLostAndBack, on the fake clock: a host's control client lost
// shows the host unreachable (once, however often it is told), its member
// neither exited nor taken away; tries again after 1 s, 2 s, 4 s while the
// host stays unreached, none sooner; once a try reaches it, the host is
// back and its pane is looked at again: a question it asked while unseen is
// found (a stall), and nothing of it is reported exited.
func TestHostLostAndBack(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"far", state.RoleProcess, ""})
	far := w.paneOf("far")
	w.s.panes[far].host = "gpu1" // as sync names a pane %N@gpu1
	var tries []time.Time
	reach := false
	w.s.tryHost = func(_ context.Context, host string) error {
		if host != "gpu1" {
			t.Errorf("tried host %q", host)
		}
		tries = append(tries, w.clock.Now())
		if reach {
			return nil
		}
		return errors.New("ssh: connect to host gpu1: No route to host")
	}
	w.s.offLoop = func(f func()) { f() }
	start := w.clock.Now()

	lost := tmux.Notification{Kind: hostLost, Name: "gpu1", Args: "exit status 255"}
	w.s.onNotification(w.ctx, lost)
	w.s.onNotification(w.ctx, lost) // told twice: one event
	w.settle()
	l, err := state.ReadLive("decide")
	if err != nil || l.Unreachable["gpu1"].IsZero() {
		t.Fatalf("live.json: unreachable %v (%v), want gpu1", l.Unreachable, err)
	}
	if evs := w.events(state.EventSupervisor, ""); len(evs) == 0 || strings.Count(eventsText(evs), "host gpu1 not reached") != 1 {
		t.Fatalf("events: %s, want one of the lost host", eventsText(evs))
	}
	// Its screen asks while the host is unreached: no output is seen.
	w.srv.mu.Lock()
	p := w.srv.pane(far)
	p.screen, p.version = "Proceed? (y/n)", p.version+1
	w.srv.mu.Unlock()

	w.advance(999 * time.Millisecond)
	if len(tries) != 0 {
		t.Fatalf("tried at %v, before the first second", tries)
	}
	w.advance(time.Millisecond + 2*time.Second + 4*time.Second)
	var at []time.Duration
	for _, tr := range tries {
		at = append(at, tr.Sub(start))
	}
	if want := []time.Duration{time.Second, 3 * time.Second, 7 * time.Second}; len(at) != 3 || at[0] != want[0] || at[1] != want[1] || at[2] != want[2] {
		t.Fatalf("tries at %v, want %v", at, want)
	}
	if got := w.live("far").State; got == state.StateExited || got == state.StateStalled {
		t.Fatalf("while unreached, far is %s", got)
	}

	reach = true
	w.advance(8 * time.Second)
	l, _ = state.ReadLive("decide")
	if len(l.Unreachable) != 0 {
		t.Errorf("still unreachable once back: %v", l.Unreachable)
	}
	if !strings.Contains(eventsText(w.events(state.EventSupervisor, "")), "host gpu1 reached again") {
		t.Errorf("no event of the host back: %s", eventsText(w.events(state.EventSupervisor, "")))
	}
	if got := w.live("far"); got.State != state.StateStalled {
		t.Errorf("far after the host came back: %+v, want stalled (its question found)", got)
	}
	if len(w.events(state.EventExit, "far")) != 0 {
		t.Errorf("far reported exited")
	}
	n := len(tries)
	w.advance(time.Minute)
	if len(tries) != n {
		t.Errorf("tried again after the host was back: %d tries, then %d", n, len(tries))
	}
}

func eventsText(evs []state.Event) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString(e.Detail + "\n")
	}
	return b.String()
}
