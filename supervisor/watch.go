package supervisor

import (
	"context"
	"strings"
	"time"

	"github.com/teamctl/teamctl/stallwatch"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// settle is how long after new output a stalled or idle pane is looked at
// again: long enough for a redraw to finish, short enough to clear promptly.
const settle = 150 * time.Millisecond

// paneWatch is the supervisor's view of one pane.
type paneWatch struct {
	id, member string
	host       string // the host it runs on ("": this machine): its pid is a process there
	origin     state.Origin
	pid        int // the pane's current process, as tmux last said
	lastOutput time.Time
	timer      timer // the quiet (or settle) timer; it hands the loop this watch, not an id
	armed      bool
	// typedTurn: text was typed into it for a turn (the lead queue) that
	// its screen has not yet been seen taking: a Stop hook until then is
	// the turn before's, arriving late (Claude Code 2.1.328 told one Stop
	// twice, the second after the text was typed).
	typedTurn     bool
	typedText     string // what was typed, until Enter was pressed again for it (judge)
	capturing     bool   // a capture of it is on its way
	again         bool   // a look was asked for while a capture was on its way: take another
	live          *state.LiveMember
	screen        string
	exits         []time.Time
	restartTimer  timer
	lockWaitSince time.Time // a lead's restart put off for Claude Code's lock since
	exitPID       string    // the process whose exit was handled last
	statusTries   int       // asks for an exit status tmux did not have yet
	rechecked     bool      // the settle look since the pane became stalled or idle was taken
	reclaiming    bool      // a lead ended to take its own Claude Code team over (reclaimOwnTeam): restarted whatever its policy
	words         wordsState
	wordsOf       *ended // the run whose last words are kept (or being kept)
	restartWaits  bool   // a restart waits for those words: the pane goes with it
	limit         limitState
	out           outSwitch // its output switched off while it prints steadily (outswitch.go)
	lookedAt      time.Time // when its screen was last asked for
}

// captureReq asks the capture worker for the screen of w's pane as it is
// now (pane: w.id when asked; a relaunch may move w to another pane
// meanwhile), or, with words, for the last lines of its run that ended.
type captureReq struct {
	w     *paneWatch
	pane  string
	words *ended
}

type capture struct {
	w      *paneWatch
	pane   string
	screen string
	lines  []string // with words: the pane's history
	words  *ended
	err    error
}

func (s *daemon) onNotification(ctx context.Context, n tmux.Notification) {
	switch n.Kind {
	case "output":
		w := s.panes[n.Pane]
		if w == nil {
			s.syncLater()
			return
		}
		now := s.clock.Now()
		prev := w.lastOutput
		w.lastOutput = now
		s.limitOutput(w, n.Data)
		if !s.steadyOutput(w, prev, now) {
			return // its output is off, or the probe found it still printing
		}
		if !w.armed {
			d := s.quiet
			if (w.live.State == state.StateStalled || w.live.State == state.StateIdle) && !w.rechecked {
				// The first output after a stall or idle is looked at soon; if the
				// state holds (a redraw, a blinking cursor), later output waits for
				// the quiet period, so an animated screen costs no stream of captures.
				d, w.rechecked = settle, true
			}
			s.arm(w, d)
		}
	case "subscription-changed":
		if n.Name == "dead" && n.Pane != "" {
			s.deadChanged(ctx, n.Pane, n.Args)
		}
	case hostLost:
		s.onHostLost(ctx, n.Name, n.Args)
	case hostBack:
		s.onHostBack(ctx, n.Name)
	case "layout-change", "window-add", "window-close", "unlinked-window-close", "sessions-changed", "window-pane-changed":
		s.syncLater()
	}
}

// arm sets w's quiet (or settle) timer to d. The timer hands the loop the
// watch itself, never a pane id: a relaunch moves a watch to its member's new
// pane (moveWatch), and a timer that named the old id would find no watch
// there and leave this one armed for good, its pane never looked at again.
func (s *daemon) arm(w *paneWatch, d time.Duration) {
	w.armed = true
	if w.timer == nil {
		w.timer = s.clock.AfterFunc(d, func() { s.fire <- w })
		return
	}
	w.timer.Reset(d)
}

// watched tells whether w is still the watch of its pane: one let go (its
// pane went, or another watch took its member's new pane) is done with.
func (s *daemon) watched(w *paneWatch) bool { return s.panes[w.id] == w }

// timerFired: a pane's quiet (or settle) time is up. When output came since,
// the timer is set again for the rest of the quiet period, so one timer per
// quiet period is all a busy pane costs.
func (s *daemon) timerFired(w *paneWatch) {
	if !s.watched(w) {
		return
	}
	w.armed = false
	if w.out.mode != outputOn {
		return // its output is off: the probe looks at it (outswitch.go)
	}
	if w.live.State != state.StateStalled && w.live.State != state.StateIdle {
		if left := s.quiet - s.clock.Now().Sub(w.lastOutput); left > 0 {
			if s.redraws(w) && s.clock.Now().Sub(w.lookedAt) >= s.quiet {
				// Printing for a quiet period without a look (outSwitch.look).
				w.out.look = true
				s.requestCapture(w)
			}
			s.arm(w, left)
			return
		}
	}
	s.requestCapture(w)
}

// requestCapture has w's screen looked at. While a capture of it is on its
// way, that one may show the screen from before the output that asked for
// this look: another is taken once it is back (judge), so the screen a quiet
// pane ends on is always looked at.
func (s *daemon) requestCapture(w *paneWatch) {
	if w.live.State == state.StateExited || w.live.State == state.StateFailed {
		return
	}
	if w.capturing {
		w.again = true
		return
	}
	w.capturing, w.lookedAt = true, s.clock.Now()
	s.captureQ <- captureReq{w: w, pane: w.id}
}

// captureWorker runs capture-pane for the loop, so the loop never waits on tmux
// while notifications pile up: the requests of q (captureQ, the screens; or
// wordsQ, the last words, which a restart waits for and which never queue
// behind screens).
func (s *daemon) captureWorker(ctx context.Context, q <-chan captureReq) {
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-q:
			select {
			case s.captured <- s.captureOne(ctx, r):
			case <-ctx.Done():
				return
			}
		}
	}
}

// captureOne takes the screen of a pane through the control client (or its
// history, for last words).
func (s *daemon) captureOne(ctx context.Context, r captureReq) capture {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if r.words != nil {
		lines, err := s.control().Command(cctx, tmux.HistoryArgs(r.pane, tmux.HistoryLines)...)
		return capture{w: r.w, pane: r.pane, lines: lines, words: r.words, err: err}
	}
	lines, err := s.control().Command(cctx, "capture-pane", "-p", "-J", "-t", r.pane)
	return capture{w: r.w, pane: r.pane, screen: strings.Join(lines, "\n"), err: err}
}

// judge applies stallwatch's verdict on a captured screen to the pane's state.
func (s *daemon) judge(ctx context.Context, c capture) {
	if c.words != nil {
		s.wordsCaptured(ctx, c)
		return
	}
	w := c.w
	if !s.watched(w) {
		return
	}
	w.capturing = false
	if c.pane != w.id {
		// The screen of the pane before a relaunch moved w: say nothing of it,
		// look at the new one.
		w.again = false
		s.requestCapture(w)
		return
	}
	if w.again {
		w.again = false
		defer s.requestCapture(w)
	}
	if c.err != nil {
		// The pane may be going (a layout notification says so) or tmux was
		// slow to answer: look again after a quiet period, so a pane that
		// lives is never left unseen.
		s.log.Debug("capture", "pane", c.pane, "err", c.err)
		if !w.armed {
			s.arm(w, s.quiet)
		}
		return
	}
	if w.live.State == state.StateExited || w.live.State == state.StateFailed {
		return
	}
	if w.live.State == state.StateWaitingApproval {
		return // the mailbox says what it waits for; its screen says nothing more
	}
	if !w.printingBut(c.screen) {
		return // still printing, and its screen changed since the last look
	}
	if w.typedTurn && w.typedText != "" && stallwatch.ComposerHolds(stallwatch.CLIClaude, c.screen, w.typedText) {
		// Typed, and still in its input line a quiet period later: Claude
		// Code took the Enter that came right after the text as part of it
		// (a paste), as Codex and Gemini do. Enter again, once.
		w.typedText = ""
		if _, err := s.srv.Run(ctx, "send-keys", "-t", w.id, "--", "Enter"); err != nil {
			s.log.Warn("Enter again into the lead", "err", err)
		}
		s.arm(w, s.quiet)
		return
	}
	v := s.det.Check(c.screen)
	if s.judgeLimit(w, c.screen, v) {
		return
	}
	prev := *w.live
	now := s.clock.Now().UTC()
	switch v.Kind {
	case stallwatch.Stalled:
		if prev.State == state.StateStalled && prev.Pattern == v.Pattern && sameQuestion(w.screen, c.screen, prev.Line, v.Line) {
			w.screen = c.screen
			return // the same stall, still waiting (maybe with what was typed at it)
		}
		if prev.State == state.StateStalled {
			s.event(state.Event{Kind: state.EventStallCleared, Member: w.member, Pane: w.id, Pattern: prev.Pattern, Line: prev.Line})
		}
		w.live = &state.LiveMember{Pane: w.id, State: state.StateStalled, Since: now, Pattern: v.Pattern, Line: v.Line, Excerpt: v.Excerpt}
		w.rechecked = false
		w.screen = c.screen
		s.event(state.Event{Kind: state.EventStall, Member: w.member, Pane: w.id, Pattern: v.Pattern, Line: v.Line, Excerpt: v.Excerpt, Origin: w.origin})
		s.notifier.stalled(ctx, w, v, c.screen)
	case stallwatch.Idle:
		w.typedTurn = false // its screen says it, whatever the hooks said
		if prev.State == state.StateStalled {
			s.event(state.Event{Kind: state.EventStallCleared, Member: w.member, Pane: w.id, Pattern: prev.Pattern, Line: prev.Line})
		}
		if prev.State != state.StateIdle {
			w.live = &state.LiveMember{Pane: w.id, State: state.StateIdle, Since: now}
			w.rechecked = false
			s.event(state.Event{Kind: state.EventIdle, Member: w.member, Pane: w.id})
			s.turnEnded(w.member)
		}
		s.notifier.idle(ctx, w)
	default:
		w.typedTurn = false // the turn the text started is under way
		switch prev.State {
		case state.StateStalled:
			s.event(state.Event{Kind: state.EventStallCleared, Member: w.member, Pane: w.id, Pattern: prev.Pattern, Line: prev.Line})
		case state.StateIdle:
			s.event(state.Event{Kind: state.EventWorking, Member: w.member, Pane: w.id})
		case state.StateRunning:
			return
		}
		w.live = &state.LiveMember{Pane: w.id, State: state.StateRunning, Since: now}
	}
	s.live.Members[w.member] = w.live
	s.saveLive()
}

// sameQuestion tells whether a stalled pane still shows the question it was
// stalled on: its line is the same, or has grown by what was typed at it (the
// terminal echoes an answer even to a program that does not read it), so one
// prompt gets one stall and at most one automatic answer. The same words asked
// again (a program asking about the next file) are a new question: the screen
// then holds more lines starting with them than before. Redraws elsewhere on
// the screen (Claude Code's dialogs) change nothing.
func sameQuestion(before, after, beforeLine, afterLine string) bool {
	if afterLine != beforeLine && !strings.HasPrefix(afterLine, beforeLine) {
		return false
	}
	return before == "" || questionLines(after, beforeLine) <= questionLines(before, beforeLine)
}

// questionLines counts the screen's lines that start with the question.
func questionLines(screen, question string) int {
	n := 0
	for _, ln := range strings.Split(screen, "\n") {
		if strings.HasPrefix(strings.TrimSpace(ln), question) {
			n++
		}
	}
	return n
}
