package supervisor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/stallwatch"
	"github.com/teamctl/teamctl/state"
)

// The safety net against a blind watch: a member shown as running (or idle,
// or stalled) whose pane has been quiet for the quiet period has had its
// screen looked at since it went quiet, and shows what that screen says. It
// is checked here for every way a pane comes to be, each followed by the
// screens a member goes through.

// deliver judges the captures held on their way, in order, and lets later
// captures through at once again.
func (w *world) deliver() {
	w.hold = false
	held := w.held
	w.held = nil
	for _, c := range held {
		w.s.judge(w.ctx, c)
	}
	w.settle()
}

// quietLook lets the quiet period (and a settle look) pass and checks the
// safety net for every pane.
func (w *world) quietLook(step string) {
	w.t.Helper()
	w.advance(w.s.quiet + settle + time.Millisecond)
	w.checkLooked(step)
}

// checkLooked is the safety net, for every pane of the server that lives.
func (w *world) checkLooked(step string) {
	w.t.Helper()
	w.srv.mu.Lock()
	type look struct {
		id, screen    string
		version, seen int
	}
	var looks []look
	for _, p := range w.srv.panes {
		if !p.Dead {
			looks = append(looks, look{p.ID, p.screen, p.version, p.seen})
		}
	}
	w.srv.mu.Unlock()
	for _, p := range looks {
		pw := w.s.panes[p.id]
		if pw == nil {
			w.t.Errorf("%s: pane %s is not watched", step, p.id)
			continue
		}
		lm := w.live(pw.member)
		switch lm.State {
		case state.StateExited, state.StateFailed, state.StateWaitingApproval:
			continue
		}
		if p.seen != p.version {
			w.t.Errorf("%s: %s (pane %s) is shown %s, quiet for the quiet period, and its screen has not been looked at since it went quiet", step, pw.member, p.id, lm.State)
		}
		want := state.StateRunning
		switch w.s.det.Check(p.screen).Kind {
		case stallwatch.Stalled:
			want = state.StateStalled
		case stallwatch.Idle:
			want = state.StateIdle
		}
		if lm.State != want || lm.Pane != p.id {
			w.t.Errorf("%s: %s is shown %s in pane %s; its pane %s shows a screen that is %s", step, pw.member, lm.State, lm.Pane, p.id, want)
		}
	}
}

// restartSupervisor has a new daemon take the team over, as `up` does after
// the old one was killed: what the old one knew is in live.json.
func (w *world) restartSupervisor() {
	w.t.Helper()
	prev, err := state.ReadLive("decide")
	if err != nil {
		w.t.Fatal(err)
	}
	st, err := state.Load("decide")
	if err != nil {
		w.t.Fatal(err)
	}
	old := w.s
	for _, pw := range old.panes {
		if pw.timer != nil {
			pw.timer.Stop()
		}
		if pw.restartTimer != nil {
			pw.restartTimer.Stop()
		}
	}
	s := newDaemon("decide", old.o, st, old.ev, w.srv, w.clock)
	s.files, s.seen = old.files, old.seen
	w.s = s
	if err := s.connect(w.ctx); err != nil {
		w.t.Fatal(err)
	}
	if err := s.begin(w.ctx, prev); err != nil {
		w.t.Fatal(err)
	}
	w.settle()
}

// TestEveryPaneIsLookedAtOnceQuiet: however a member's pane came to be, its
// screens are seen: a question stalls it, Claude Code's input box makes it
// idle, new work makes it running, and text queued for the lead is typed once
// the lead is idle in its new pane.
func TestEveryPaneIsLookedAtOnceQuiet(t *testing.T) {
	question, idle, working := "$ cp a b\nOverwrite? (y/n)", screenFile(t, "claude-idle.txt"), screenFile(t, "claude-working.txt")
	for _, c := range []struct {
		name string
		// bring brings the lead's or web's pane about (both have restart:
		// always) and returns the member to follow.
		bring func(w *world) string
	}{
		{"first start", func(w *world) string { return "web" }},
		{"new output while a capture is on its way", func(w *world) string {
			w.hold = true
			w.output("%1", "building…")
			w.advance(quiet) // the capture of "building…" is taken, not yet judged
			w.output("%1", question)
			w.advance(quiet) // its quiet timer fires while that capture is still on its way
			w.deliver()
			return "web"
		}},
		{"relaunched by the supervisor", func(w *world) string {
			w.output("%1", "building…")
			w.advance(quiet)
			w.exit("web", "3", "")
			w.advance(time.Second)
			return "web"
		}},
		{"relaunched by the supervisor, its quiet timer still set", func(w *world) string {
			w.output("%1", "building…")
			w.advance(quiet / 2)
			w.exit("web", "3", "")
			w.advance(time.Second) // the restart comes before the old pane's quiet timer
			return "web"
		}},
		{"relaunched by the supervisor, a capture on its way", func(w *world) string {
			w.hold = true
			w.output("%1", "building…")
			w.advance(quiet) // the capture is taken, not yet judged
			w.exit("web", "3", "")
			w.advance(time.Second)
			w.deliver() // the old pane's screen comes back after the relaunch
			return "web"
		}},
		{"a Claude Code lead relaunched by the supervisor", func(w *world) string {
			w.output("%0", idle)
			w.advance(quiet / 2)
			w.exit("lead", "0", "")
			w.advance(time.Second)
			return "lead"
		}},
		{"teamctl restart", func(w *world) string {
			w.output("%1", "building…")
			w.advance(quiet / 2)
			w.relaunchByHand("web")
			w.srv.ctl.notes <- notification("layout-change", "", "")
			w.settle()
			return "web"
		}},
		{"teamctl restart, a capture on its way", func(w *world) string {
			w.hold = true
			w.output("%1", "building…")
			w.advance(quiet)
			w.relaunchByHand("web")
			w.srv.ctl.notes <- notification("layout-change", "", "")
			w.advance(syncDelay)
			w.deliver()
			return "web"
		}},
		{"up --recreate of a running member", func(w *world) string {
			// up relaunches a member whose launch changed in a new pane in its
			// place and records it: the daemon sees a new pane and the old one
			// gone in one listing.
			w.output("%1", question)
			w.advance(quiet)
			w.relaunchByHand("web")
			w.srv.ctl.notes <- notification("layout-change", "", "")
			w.settle()
			return "web"
		}},
		{"adopted by a supervisor started again", func(w *world) string {
			w.output("%1", "building…")
			w.advance(quiet / 2)
			w.restartSupervisor()
			return "web"
		}},
		{"adopted by a supervisor started again, stalled before", func(w *world) string {
			w.output("%1", question)
			w.advance(quiet)
			w.restartSupervisor()
			return "web"
		}},
		{"a teammate the lead spawned", func(w *world) string {
			cfg, _ := claudecode.TeamConfigPath(w.s.st.ClaudeConfig, w.s.st.ClaudeTeam)
			os.MkdirAll(filepath.Dir(cfg), 0o700)
			b, _ := json.Marshal(map[string]any{"name": w.s.st.ClaudeTeam, "leadSessionId": w.s.st.LeadSessionID,
				"members": []map[string]any{{"name": "team-lead"}, {"name": "scout", "tmuxPaneId": "%9"}}})
			os.WriteFile(cfg, b, 0o600)
			w.srv.mu.Lock()
			w.srv.panes = append(w.srv.panes, &fakePane{Pane: paneOf("%9", 5_500_000), version: 1})
			w.srv.mu.Unlock()
			w.srv.ctl.notes <- notification("layout-change", "", "")
			w.advance(time.Second)
			return "scout"
		}},
		{"a relaunch that swapped panes while the supervisor's restart waited", func(w *world) string {
			// A person's restart holds the team's lock while the supervisor's
			// own restart of the same exit is due: the person's new pane is
			// swapped into place, the supervisor's restart finds it there.
			unlock, err := state.Lock(w.ctx, "decide")
			if err != nil {
				w.t.Fatal(err)
			}
			w.output("%1", "building…")
			w.exit("web", "", "15")
			w.advance(3 * time.Second)
			w.relaunchByHand("web")
			unlock()
			w.srv.ctl.notes <- notification("layout-change", "", "")
			w.advance(time.Second)
			return "web"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, "", member{"lead", state.RoleLead, "always"}, member{"web", state.RoleTeammate, "always"})
			who := c.bring(w)
			w.quietLook("once it came to be")
			pane := w.paneOf(who)
			for _, step := range []struct{ name, screen string }{
				{"a question", question},
				{"the input box", idle},
				{"new work", working},
				{"the input box again", idle},
				{"another question", question + " y\nOverwrite? (y/n)"},
			} {
				w.output(pane, step.screen)
				w.quietLook(step.name)
			}
			if t.Failed() {
				return
			}
			if who != "lead" {
				return
			}
			// Text queued for the lead is typed into its new pane once it is idle.
			w.output(pane, working)
			w.quietLook("the lead at work")
			if err := state.QueueForLead("decide", "after the restart"); err != nil {
				t.Fatal(err)
			}
			w.changed("queue")
			w.output(pane, idle)
			w.advance(w.s.quiet + settle + time.Millisecond)
			if n := len(w.srv.typed); n != 1 || w.srv.typed[0] != pane+": after the restart" {
				t.Errorf("typed: %q, want the queued text in %s", w.srv.typed, pane)
			}
			// The text typed starts a turn: the lead is working until its
			// screen, looked at again a quiet period later, says otherwise
			// (here it stays idle: the text was not taken).
			w.quietLook("the lead idle again, its text not taken")
		})
	}
}

// TestNoticeAfterAnExitKeepsTheRestart: a teammate's idle_notification (or a
// permission request) read after its pane died does not undo the exit: its
// restart comes as scheduled.
func TestNoticeAfterAnExitKeepsTheRestart(t *testing.T) {
	for _, kind := range []string{"idle_notification", "permission_request"} {
		t.Run(kind, func(t *testing.T) {
			w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, "always"})
			w.exit("mate", "1", "")
			inbox, _ := claudecode.InboxPath(w.s.st.ClaudeConfig, w.s.st.ClaudeTeam, claudecode.LeadMailboxName)
			os.MkdirAll(filepath.Dir(inbox), 0o700)
			var text []byte
			if kind == "idle_notification" {
				text, _ = json.Marshal(map[string]any{"type": "idle_notification", "from": "mate", "timestamp": "2026-12-01T09:00:00.000Z", "idleReason": "available", "result": "done"})
			} else {
				text, _ = json.Marshal(map[string]any{"type": "permission_request", "request_id": "r9", "agent_id": "mate@" + w.s.st.ClaudeTeam,
					"tool_name": "Bash", "tool_use_id": "t9", "description": "x", "input": map[string]string{"command": "true"}})
			}
			if err := claudecode.AppendMessage(w.ctx, inbox, claudecode.Message{From: "mate", Text: string(text), Timestamp: "2026-12-01T09:00:00.000Z"}); err != nil {
				t.Fatal(err)
			}
			w.changed("inbox")
			if got := w.live("mate").State; got != state.StateExited {
				t.Errorf("after the notice: %s, want exited", got)
			}
			w.advance(time.Minute)
			if n := len(w.events(state.EventRestart, "mate")); n != 1 {
				t.Errorf("%d restarts of mate, want 1", n)
			}
		})
	}
}

// TestAnEditedLayoutIsNotTaken: a supervisor started after the layout file
// changed since up read it (an agent may have edited it: it runs its notify
// command) takes the default watchdog settings, not the file's, until up
// records the file again.
func TestAnEditedLayoutIsNotTaken(t *testing.T) {
	w := newWorld(t, "  quiet: 1s\n  notify: {command: [touch, /tmp/teamctl-should-not-exist]}\n", member{"lead", state.RoleLead, ""}, member{"web", state.RoleProcess, ""})
	if w.s.lay == nil || w.s.quiet != time.Second {
		t.Fatalf("the layout as up read it was not taken: quiet %s", w.s.quiet)
	}
	f, err := os.OpenFile(w.s.st.LayoutPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("# edited\n")
	f.Close()
	w.restartSupervisor()
	if w.s.lay != nil || w.s.quiet != quiet {
		t.Errorf("an edited layout was taken: quiet %s, notify %v", w.s.quiet, w.s.lay != nil)
	}
	w.output("%1", "Overwrite? (y/n)")
	w.advance(quiet)
	if got := w.live("web").State; got != state.StateStalled {
		t.Errorf("with the default settings, web is %s, want stalled", got)
	}
}
