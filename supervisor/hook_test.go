package supervisor

import (
	"strings"
	"testing"

	"github.com/teamctl/teamctl/state"
)

// hook appends a hook event as `teamctl hook` writes it: for member, from
// pane (its TMUX_PANE), and has the daemon read it.
func (w *world) hook(name, member, pane string) {
	w.t.Helper()
	ev, err := state.OpenEventLog("decide")
	if err != nil {
		w.t.Fatal(err)
	}
	ev.Append(state.Event{Kind: state.EventHook, Member: member, Pane: pane, Hook: name, Detail: name})
	ev.Close()
	w.changed("events")
}

// TestHookSpeaksOnlyForItsPane: a Stop hook naming mate from another
// member's pane, or from no pane, leaves mate working, and is reported once
// for each pane; from mate's own pane it makes mate idle.
func TestHookSpeaksOnlyForItsPane(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""}, member{"other", state.RoleTeammate, ""})
	working := screenFile(t, "claude-working.txt")
	w.output("%1", working)
	w.advance(quiet)
	if got := w.live("mate").State; got != state.StateRunning {
		t.Fatalf("mate is %s before any hook, want running", got)
	}
	for _, pane := range []string{"%2", "%2", "", "%0"} {
		w.hook("Stop", "mate", pane)
		if got := w.live("mate").State; got != state.StateRunning {
			t.Fatalf("a Stop hook for mate from pane %q made it %s", pane, got)
		}
	}
	if n := len(w.events(state.EventIdle, "mate")); n != 0 {
		t.Errorf("%d idle events for mate from hooks of other panes", n)
	}
	reports := w.events(state.EventSupervisor, "mate")
	if len(reports) != 3 {
		t.Errorf("reports of hooks from other panes: %+v, want one each for %%2, no pane and %%0", reports)
	}
	for _, r := range reports {
		if !strings.Contains(r.Detail, "ignored a Stop hook for mate from") || !strings.Contains(r.Detail, "mate runs in pane %1") {
			t.Errorf("report: %q", r.Detail)
		}
	}

	w.hook("Stop", "mate", "%1")
	if got := w.live("mate").State; got != state.StateIdle {
		t.Errorf("a Stop hook from mate's own pane left it %s, want idle", got)
	}
	if evs := w.events(state.EventIdle, "mate"); len(evs) != 1 || evs[0].Detail != "hook Stop" {
		t.Errorf("idle events: %+v", evs)
	}
}

// TestHookBeforeAgent: a Gemini member's turn start (BeforeAgent, from its
// own pane) makes it working again after a Stop made it idle, with a working
// event; from another pane it changes nothing.
func TestHookBeforeAgent(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""})
	w.output("%1", screenFile(t, "claude-working.txt"))
	w.advance(quiet)
	w.hook("Stop", "mate", "%1")
	if got := w.live("mate").State; got != state.StateIdle {
		t.Fatalf("mate is %s after its Stop hook, want idle", got)
	}
	w.hook("BeforeAgent", "mate", "%0")
	if got := w.live("mate").State; got != state.StateIdle {
		t.Errorf("a BeforeAgent hook for mate from the lead's pane made it %s", got)
	}
	w.hook("BeforeAgent", "mate", "%1")
	if got := w.live("mate").State; got != state.StateRunning {
		t.Errorf("a BeforeAgent hook from mate's own pane left it %s, want running (working)", got)
	}
	if evs := w.events(state.EventWorking, "mate"); len(evs) != 1 || evs[0].Detail != "hook BeforeAgent" {
		t.Errorf("working events: %+v", evs)
	}
}
