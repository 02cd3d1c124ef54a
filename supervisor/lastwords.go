package supervisor

import (
	"context"
	"time"

	"github.com/teamctl/teamctl/relaunch"
	"github.com/teamctl/teamctl/state"
)

// A member's last words: when its program ends, the last lines of its pane
// (history and screen) are kept in the team's folder (state.WriteLastWords),
// for `status`, `top` and `logs` to say why it ended. They must be read
// before a restart replaces the dead pane, which takes them with it: the
// capture is asked for at the exit (through a capture worker of their own,
// off the loop), and a restart due before it is back waits for it
// (doRestart).

// wordsState is where the last words of a pane's run that ended are.
type wordsState int

const (
	wordsNone    wordsState = iota // no run ended since the watch began (or it ran again)
	wordsKeeping                   // a capture of them is on its way
	wordsKept                      // in the team's folder (state.WriteLastWords), or given up on
	wordsMissed                    // the capture failed: doRestart takes them itself
)

// ended is a run of a pane that ended: its program and how.
type ended struct {
	seq  int // counts a watch's ended runs: a capture of an earlier one is stale
	pane string
	pid  int
	code *int
	sig  int
}

// keepWords has the last words of w's run that just ended captured.
func (s *daemon) keepWords(w *paneWatch, code *int, sig int) {
	seq := 1
	if w.wordsOf != nil {
		seq = w.wordsOf.seq + 1
	}
	w.wordsOf = &ended{seq: seq, pane: w.id, pid: w.pid, code: code, sig: sig}
	w.words = wordsKeeping
	s.wordsQ <- captureReq{w: w, pane: w.id, words: w.wordsOf}
}

// wordsCaptured keeps the last words a capture brought back, unless a later
// run of the pane ended meanwhile, and lets a restart that waited for them go.
func (s *daemon) wordsCaptured(ctx context.Context, c capture) {
	w := c.w
	if w.wordsOf == nil || c.words.seq != w.wordsOf.seq {
		return // of an earlier run: a later one's words are on their way
	}
	if other := s.watchOf(w.member); !s.watched(w) && other != nil {
		return // the member runs elsewhere now: its words are that watch's
	}
	if c.err != nil {
		s.log.Debug("capture last words", "pane", c.pane, "err", c.err)
		w.words = wordsMissed
	} else {
		s.writeWords(w.member, c.words, c.lines)
		w.words = wordsKept
	}
	if w.restartWaits {
		w.restartWaits = false
		s.doRestart(ctx, w.id)
	}
}

// keepWordsNow captures the last words of w's run itself, for a restart that
// would otherwise replace the pane without them (the capture at the exit
// failed: the control client was being replaced, tmux was slow). doRestart
// runs tmux commands anyway; this is one more, with a deadline.
func (s *daemon) keepWordsNow(ctx context.Context, w *paneWatch) {
	w.words = wordsKept // one try: the restart must not wait on tmux
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := relaunch.KeepWords(cctx, s.srv, s.team, w.member, w.wordsOf.run(), s.clock.Now()); err != nil {
		s.log.Warn("last words not kept", "member", w.member, "pane", w.wordsOf.pane, "err", err)
	}
}

// writeWords stores a pane's captured lines as the member's last words,
// without tmux's own "Pane is dead" line under them.
func (s *daemon) writeWords(member string, e *ended, captured []string) {
	if err := state.WriteLastWords(s.team, member, relaunch.Words(e.run(), captured, s.clock.Now())); err != nil {
		s.log.Warn("last words not kept", "member", member, "err", err)
	}
}

// run is the run e that ended, as a relaunch keeps its words.
func (e *ended) run() relaunch.Ended {
	return relaunch.Ended{Pane: e.pane, PID: e.pid, ExitCode: e.code, Signal: e.sig}
}
