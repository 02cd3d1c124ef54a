package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// The limit screens of the real Claude Code (stallwatch/testdata), their
// reset time set to the one a test needs: the world's clock starts at 09:00
// UTC, and so does the supervisor's zone (TZ=UTC, set by each test).
func retryingAt(t *testing.T, shown string) string {
	s := screenFile(t, "claude-2.1.332-limit-retrying.txt")
	if !strings.Contains(s, "(4:56am)") {
		t.Fatal("the retrying screen no longer shows (4:56am)")
	}
	return strings.Replace(s, "(4:56am)", "("+shown+")", 1)
}

const limitsOn = "limits:\n  resume: true\n  margin: 10s\n"

// limitWorld is a world with lead and teammate mate, the supervisor's
// time zone UTC, and top-level layout keys top.
func limitWorld(t *testing.T, top string) *world {
	t.Helper()
	old := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = old })
	return newWorldWith(t, top, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""})
}

// draw is new output of pane whose bytes are the screen itself (the
// markers of a limit are in them, as in Claude Code's output).
func (w *world) draw(pane, screen string) {
	w.srv.mu.Lock()
	p := w.srv.pane(pane)
	p.screen = screen
	p.version++
	w.srv.mu.Unlock()
	w.srv.ctl.notes <- tmux.Notification{Kind: "output", Pane: pane, Data: []byte(screen)}
	w.settle()
}

// typedInto is what was typed into pane, in order.
func (w *world) typedInto(pane string) []string {
	w.srv.mu.Lock()
	defer w.srv.mu.Unlock()
	var out []string
	for _, s := range w.srv.typed {
		if text, ok := strings.CutPrefix(s, pane+": "); ok {
			out = append(out, text)
		}
	}
	return out
}

// jump sets the wall clock by d, as a person or NTP does: a timer still
// runs after the time it had left (timers measure elapsed time).
func (c *fakeClock) jump(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	for _, t := range c.timers {
		t.at = t.at.Add(d)
	}
}

// advanceTo moves the clock to at.
func (w *world) advanceTo(at time.Time) { w.advance(at.Sub(w.clock.Now())) }

func day(h, m, s int) time.Time { return time.Date(2026, 12, 1, h, m, s, 0, time.UTC) }

// TestLimitFromTheScreen: Claude Code's retry spinner makes the member
// limited with the reset time it shows (its output draws a limit, so the
// screen is looked at at once, not after a quiet period it never has);
// when it gives up, the reset time is kept; the member's next screen
// without the limit ends it. Without limits: resume nothing is typed.
func TestLimitFromTheScreen(t *testing.T) {
	w := limitWorld(t, "")
	w.draw("%1", retryingAt(t, "9:05am"))
	got := w.live("mate")
	if got.State != state.StateLimited || !got.Reset.Equal(day(9, 5, 0)) || got.ResetShown != "9:05am" || !strings.Contains(got.Line, "5-hour limit reached") {
		t.Fatalf("after the retry spinner: %+v", got)
	}
	w.draw("%1", screenFile(t, "claude-2.1.332-limit-gave-up.txt"))
	w.advance(quiet)
	got = w.live("mate")
	if got.State != state.StateLimited || !got.Reset.Equal(day(9, 5, 0)) || !strings.Contains(got.Line, "Request rejected (429)") {
		t.Fatalf("after Claude Code gave up: %+v", got)
	}
	if evs := w.events(state.EventLimited, "mate"); len(evs) != 1 || !evs[0].Reset.Equal(day(9, 5, 0)) || !strings.Contains(evs[0].Detail, "resets 9:05am") {
		t.Errorf("limited events: %+v", evs)
	}
	w.advance(2 * time.Hour)
	if typed := w.typedInto("%1"); len(typed) != 0 {
		t.Errorf("typed %q without limits: {resume: true}", typed)
	}
	w.draw("%1", screenFile(t, "claude-2.1.332-idle.txt"))
	w.advance(quiet)
	if got := w.live("mate").State; got != state.StateIdle {
		t.Errorf("after an answer: %s, want idle", got)
	}
	if n := len(w.events(state.EventLimitCleared, "mate")); n != 1 {
		t.Errorf("%d limit-cleared events", n)
	}
}

// TestLimitResumesOnceAfterTheReset: with limits: {resume: true} the
// continuation is typed once, at the end of the minute shown plus the
// margin, and not again while the member stays limited at that reset (the
// backoff once typed it again for the same reset).
func TestLimitResumesOnceAfterTheReset(t *testing.T) {
	w := limitWorld(t, limitsOn)
	w.draw("%1", retryingAt(t, "9:05am"))
	w.draw("%1", screenFile(t, "claude-2.1.332-limit-gave-up.txt"))
	w.advanceTo(day(9, 6, 9))
	if typed := w.typedInto("%1"); len(typed) != 0 {
		t.Fatalf("typed %q before 9:06:10 (the end of 9:05 and 10s)", typed)
	}
	w.advance(time.Second)
	if typed := w.typedInto("%1"); len(typed) != 1 || typed[0] != "continue" {
		t.Fatalf("typed %q at 9:06:10, want continue once", typed)
	}
	evs := w.events(state.EventLimitResume, "mate")
	if len(evs) != 1 || !evs[0].Reset.Equal(day(9, 5, 0)) || !strings.Contains(evs[0].Detail, "typed continue") {
		t.Errorf("limit-resume events: %+v", evs)
	}
	// The screen still shows the limit at that reset (looked at again,
	// and again): no second continuation for it, however long it stays so
	// (the backoff is for a limit whose reset time was never shown).
	for range 3 {
		w.draw("%1", screenFile(t, "claude-2.1.332-limit-gave-up.txt"))
		w.advance(40 * time.Minute)
	}
	if typed := w.typedInto("%1"); len(typed) != 1 {
		t.Fatalf("typed %q: the same reset twice", typed)
	}
	// It continues, and answers: no longer limited, nothing more typed.
	w.draw("%1", screenFile(t, "claude-working.txt"))
	w.draw("%1", screenFile(t, "claude-2.1.332-idle.txt"))
	w.advance(quiet)
	w.advance(time.Hour)
	if typed := w.typedInto("%1"); len(typed) != 1 {
		t.Errorf("typed %q after the member went on", typed)
	}
	if got := w.live("mate").State; got != state.StateIdle {
		t.Errorf("state %s, want idle", got)
	}
}

// TestLimitNotTypedWhileClaudeCodeRetries: a reset passed while Claude Code
// still retries by itself: nothing typed until it gives up.
func TestLimitNotTypedWhileClaudeCodeRetries(t *testing.T) {
	w := limitWorld(t, limitsOn)
	w.draw("%1", retryingAt(t, "9:01am"))
	w.advanceTo(day(9, 5, 0))
	if typed := w.typedInto("%1"); len(typed) != 0 {
		t.Fatalf("typed %q while Claude Code retried", typed)
	}
	w.draw("%1", screenFile(t, "claude-2.1.332-limit-gave-up.txt"))
	w.advance(limitCheck)
	if typed := w.typedInto("%1"); len(typed) != 1 {
		t.Fatalf("typed %q once it gave up, want one continuation", typed)
	}
}

// TestLimitBackoffWithoutAResetTime: no reset time shown: tries after 1, 2,
// 4, 8, 16, 30, 30 minutes (each meeting the limit again), and none once
// the member is no longer limited.
func TestLimitBackoffWithoutAResetTime(t *testing.T) {
	w := limitWorld(t, limitsOn)
	gaveUp := screenFile(t, "claude-2.1.328-limit-gave-up.txt")
	w.draw("%1", gaveUp)
	var gaps []time.Duration
	last := w.clock.Now()
	for i := 0; i < 7; i++ {
		n := len(w.typedInto("%1"))
		for len(w.typedInto("%1")) == n {
			w.advance(10 * time.Second)
			if w.clock.Now().Sub(last) > time.Hour {
				t.Fatalf("try %d never came", i+1)
			}
		}
		now := w.clock.Now()
		gaps = append(gaps, now.Sub(last).Truncate(10*time.Second))
		last = now
		// The continuation meets the limit again.
		w.draw("%1", screenFile(t, "claude-working.txt"))
		w.draw("%1", gaveUp)
	}
	want := []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 16 * time.Minute, 30 * time.Minute, 30 * time.Minute}
	for i := range want {
		if i >= len(gaps) || gaps[i] != want[i] {
			t.Fatalf("gaps between tries %v, want %v", gaps, want)
		}
	}
	if evs := w.events(state.EventLimitResume, "mate"); len(evs) != 7 || !strings.Contains(evs[6].Detail, "try 7") {
		t.Errorf("limit-resume events: %d, last %+v", len(evs), evs[len(evs)-1])
	}
	// It works again: nothing more.
	w.draw("%1", screenFile(t, "claude-2.1.332-idle.txt"))
	w.advance(quiet)
	w.advance(2 * time.Hour)
	if n := len(w.typedInto("%1")); n != 7 {
		t.Errorf("%d continuations once no longer limited, want 7", n)
	}
}

// TestLimitClockJumps: the wall clock set back just before the reset does
// not type early and types once when it is due; set forward past it, the
// continuation is typed within limitCheck, once.
func TestLimitClockJumps(t *testing.T) {
	t.Run("backwards", func(t *testing.T) {
		w := limitWorld(t, limitsOn)
		w.draw("%1", retryingAt(t, "9:05am"))
		w.draw("%1", screenFile(t, "claude-2.1.332-limit-gave-up.txt"))
		w.advanceTo(day(9, 6, 5))
		w.clock.jump(-time.Hour) // 8:06:05
		w.advance(30 * time.Minute)
		if typed := w.typedInto("%1"); len(typed) != 0 {
			t.Fatalf("typed %q at %v, before the reset by the wall clock", typed, w.clock.Now())
		}
		w.advanceTo(day(9, 6, 9))
		if typed := w.typedInto("%1"); len(typed) != 0 {
			t.Fatalf("typed %q before 9:06:10", typed)
		}
		w.advanceTo(day(9, 7, 10))
		w.advance(2 * time.Hour)
		if typed := w.typedInto("%1"); len(typed) != 1 {
			t.Fatalf("typed %q, want one continuation", typed)
		}
	})
	t.Run("forwards", func(t *testing.T) {
		w := limitWorld(t, limitsOn)
		w.draw("%1", retryingAt(t, "9:05am"))
		w.draw("%1", screenFile(t, "claude-2.1.332-limit-gave-up.txt"))
		w.advanceTo(day(9, 2, 0))
		w.clock.jump(2 * time.Hour) // 11:02
		w.advance(limitCheck)
		if typed := w.typedInto("%1"); len(typed) != 1 {
			t.Fatalf("typed %q within %v of a jump past the reset, want one continuation", typed, limitCheck)
		}
		w.clock.jump(time.Hour)
		w.advance(time.Minute)
		if typed := w.typedInto("%1"); len(typed) != 1 {
			t.Fatalf("typed %q after another jump", typed)
		}
	})
}

// TestLimitFromTheTranscript: an idle screen that does not show the limit
// (scrolled away) with the transcript's last answer a 429 error is
// limited; an answer after it ends the limit.
func TestLimitFromTheTranscript(t *testing.T) {
	w := limitWorld(t, "")
	m, ok := w.s.st.Member("mate")
	if !ok || m.SessionID == "" {
		t.Fatalf("mate has no session id: %+v", m)
	}
	dir := filepath.Join(w.s.claudeDir, "projects", "-work")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, m.SessionID+".jsonl")
	errLine := `{"type":"assistant","isSidechain":false,"message":{"id":"x1","model":"<synthetic>","usage":{"input_tokens":0,"output_tokens":0}},"error":"rate_limit","isApiErrorMessage":true,"apiErrorStatus":429,"apiErrorType":"rate_limit_error"}` + "\n"
	okLine := `{"type":"assistant","isSidechain":false,"message":{"id":"msg_2","model":"claude-opus-5-5","usage":{"input_tokens":5,"output_tokens":1}}}` + "\n"
	if err := os.WriteFile(path, []byte(errLine), 0o600); err != nil {
		t.Fatal(err)
	}
	idle := screenFile(t, "claude-idle.txt")
	w.output("%1", idle)
	w.advance(quiet)
	if got := w.live("mate"); got.State != state.StateLimited || !got.Reset.IsZero() {
		t.Fatalf("with a 429 last in the transcript: %+v", got)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(okLine)
	f.Close()
	w.output("%1", idle+" ")
	w.advance(quiet)
	if got := w.live("mate").State; got != state.StateIdle {
		t.Errorf("after an answer in the transcript: %s, want idle", got)
	}
}

// TestLimitFromTheStopFailureHook: StopFailure with rate_limit makes the
// member limited, and its screen is looked at for the reset time; a plain
// Stop hook does not make a limited member idle.
func TestLimitFromTheStopFailureHook(t *testing.T) {
	w := limitWorld(t, "")
	w.output("%1", screenFile(t, "claude-working.txt"))
	w.advance(quiet)
	// Claude Code gave up; its screen shows the idle box, the error
	// scrolled away, and no output came since.
	w.printed("%1", nil, screenFile(t, "claude-idle.txt"))
	ev, err := state.OpenEventLog("decide")
	if err != nil {
		t.Fatal(err)
	}
	ev.Append(state.Event{Kind: state.EventHook, Member: "mate", Pane: "%1", Hook: "StopFailure", Detail: "StopFailure  rate_limit"})
	ev.Close()
	w.changed("events")
	if got := w.live("mate"); got.State != state.StateLimited {
		t.Fatalf("after StopFailure rate_limit: %+v", got)
	}
	w.hook("Stop", "mate", "%1")
	if got := w.live("mate").State; got != state.StateLimited {
		t.Errorf("a Stop hook made a limited member %s", got)
	}
}

// TestLimitSameTimeShownAgain: the same reset time on the screen later
// (Claude Code still showing "(9:05am)" at 9:40, when read alone it would
// be tomorrow's) is the same reset: the continuation is not put off a day.
func TestLimitSameTimeShownAgain(t *testing.T) {
	w := limitWorld(t, "")
	w.draw("%1", retryingAt(t, "9:05am"))
	w.advanceTo(day(9, 40, 0))
	w.draw("%1", strings.Replace(retryingAt(t, "9:05am"), "retrying in 4s", "retrying in 3s", 1))
	if got := w.live("mate"); got.State != state.StateLimited || !got.Reset.Equal(day(9, 5, 0)) {
		t.Errorf("after the same time shown again: %+v", got)
	}
}

// TestLimitEndsWhenTheContinuationIsAnswered: after a StopFailure hook and
// the continuation, the member answers (its screen goes from the limit to
// idle with no working screen looked at between, and a Stop hook): no longer
// limited, and nothing typed again.
func TestLimitEndsWhenTheContinuationIsAnswered(t *testing.T) {
	w := limitWorld(t, limitsOn)
	w.draw("%1", retryingAt(t, "9:05am"))
	ev, err := state.OpenEventLog("decide")
	if err != nil {
		t.Fatal(err)
	}
	ev.Append(state.Event{Kind: state.EventHook, Member: "mate", Pane: "%1", Hook: "StopFailure", Detail: "StopFailure  rate_limit"})
	ev.Close()
	w.changed("events")
	w.draw("%1", screenFile(t, "claude-2.1.332-limit-gave-up.txt"))
	w.advanceTo(day(9, 6, 10))
	if typed := w.typedInto("%1"); len(typed) != 1 {
		t.Fatalf("typed %q", typed)
	}
	w.hook("Stop", "mate", "%1")
	w.output("%1", screenFile(t, "claude-2.1.332-idle.txt"))
	w.advance(quiet)
	if got := w.live("mate").State; got != state.StateIdle {
		t.Fatalf("after the continuation was answered: %s, want idle", got)
	}
	w.advance(time.Hour)
	if typed := w.typedInto("%1"); len(typed) != 1 {
		t.Errorf("typed %q after the member went on", typed)
	}
}

// TestLimitOfACodexMember: Codex's usage-limit screen (its banner over its
// idle composer) makes a Codex member limited with the reset it shows, and
// with limits: {resume: true} the continuation is typed once after that
// minute, as `teamctl send` types into it (typeAgent), never with send-keys'
// text-and-Enter, which Codex leaves unsent.
func TestLimitOfACodexMember(t *testing.T) {
	old := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = old })
	w := newWorldWith(t, limitsOn, "", member{"lead", state.RoleLead, ""}, member{"rev", state.RoleProcess, ""})
	m, _ := w.s.st.Member("rev")
	m.Agent = "codex" // as up records a member of agent: codex
	var sent []string
	w.s.typeAgent = func(member, kind, text string) { sent = append(sent, member+" ("+kind+"): "+text) }
	screen := screenFile(t, "codex-0.171.0-usage-limit.txt") // "try again at 1:30 AM"
	w.draw("%1", screen)
	w.advance(quiet)
	reset := time.Date(2026, 12, 2, 1, 30, 0, 0, time.UTC) // the next 1:30 AM after 09:00
	got := w.live("rev")
	if got.State != state.StateLimited || !got.Reset.Equal(reset) || !strings.Contains(got.Line, "hit your usage limit") {
		t.Fatalf("after Codex's limit: %+v", got)
	}
	w.advanceTo(reset.Add(time.Minute + 9*time.Second))
	if len(sent) != 0 {
		t.Fatalf("typed %q before the reset's minute and margin", sent)
	}
	w.advance(time.Second)
	if len(sent) != 1 || sent[0] != "rev (codex): continue" {
		t.Fatalf("typed %q, want rev: continue once", sent)
	}
	if typed := w.typedInto("%1"); len(typed) != 0 {
		t.Errorf("send-keys typed %q into Codex", typed)
	}
	if evs := w.events(state.EventLimitResume, "rev"); len(evs) != 1 {
		t.Errorf("limit-resume events: %+v", evs)
	}
	w.advance(3 * time.Hour)
	if len(sent) != 1 {
		t.Errorf("typed again for the same reset: %q", sent)
	}
}

// TestLimitOfAGeminiMember: Gemini CLI's quota dialog makes its member
// limited, not stalled (the state says why it waits), with the reset it
// shows; without one, the continuation is planned at the backoff, and it is
// given as Gemini's (continueAgent answers its dialog first). A plain
// process printing the same text is no limit.
func TestLimitOfAGeminiMember(t *testing.T) {
	old := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = old })
	w := newWorldWith(t, limitsOn, "", member{"lead", state.RoleLead, ""}, member{"critic", state.RoleProcess, ""})
	m, _ := w.s.st.Member("critic")
	m.Agent = "gemini"
	var sent []string
	w.s.typeAgent = func(member, kind, text string) { sent = append(sent, member+" ("+kind+"): "+text) }
	w.draw("%1", screenFile(t, "gemini-0.61.0-quota.txt")) // "1. Keep trying", no reset
	w.advance(quiet)
	got := w.live("critic")
	if got.State != state.StateLimited || !got.Reset.IsZero() || !strings.Contains(got.Line, "Usage limit reached") {
		t.Fatalf("at Gemini's quota dialog: %+v", got)
	}
	if evs := w.events(state.EventStall, "critic"); len(evs) != 0 {
		t.Errorf("the quota dialog was said a stall: %+v", evs)
	}
	w.advanceTo(got.Since.Add(limitFirstTry - time.Second))
	if len(sent) != 0 {
		t.Fatalf("continued %q before the backoff", sent)
	}
	w.advance(time.Second)
	if len(sent) != 1 || sent[0] != "critic (gemini): continue" {
		t.Fatalf("continued %q, want critic (gemini): continue once", sent)
	}
	// With a reset shown: limited until then.
	w.draw("%1", screenFile(t, "gemini-0.61.0-quota-reset.txt")) // "Access resets at 2:04 AM UTC."
	w.advance(quiet)
	if got := w.live("critic"); got.State != state.StateLimited || !got.Reset.Equal(time.Date(2026, 12, 2, 2, 4, 0, 0, time.UTC)) {
		t.Errorf("at the dialog with a reset: %+v", got)
	}
}
