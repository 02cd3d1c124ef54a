package supervisor

import (
	"context"
	"time"

	"github.com/teamctl/teamctl/state"
)

// The output switch: what following a busy pane costs the tmux server.
//
// tmux formats every write of every pane as an %output line for the
// supervisor's control client, and for a team that prints steadily that is
// most of what the server does for it (bench/cost). Yet all the supervisor
// wants of a busy pane is the moment it goes quiet. So a pane that has
// printed steadily for a while (steadyFor, no gap above steadyGap: a short
// burst never qualifies) has its output switched off for the supervisor's
// client (`refresh-client -A %N:pause`: tmux then drops it for this client
// alone, what it had queued included; the pane is still read and drawn). At
// the end of a quiet period a probe switches it on again (`%N:continue`:
// only what is written after that is sent) and waits probeWindow for output:
//   - output: still busy; off again, and another probe a quiet period later
//     (a stalled or idle pane is looked at too, as its quiet timer would);
//   - none: the pane is quiet, or nearly: its output stays on, its screen is
//     looked at now, and its quiet timer runs from the probe, so it is looked
//     at again once the quiet period has passed since.
//
// What it costs: a steady printer that stops is looked at up to probeWindow
// (plus a command's way to tmux) after its quiet period, where it was looked
// at right at its end; or earlier, probeWindow after it stopped, when it
// stopped just before a probe (a look before the quiet period is harmless:
// a screen that asks nothing reads as running, and the quiet timer, running
// from the probe, looks again). A pane that prints briefly and stops, as a question does, is
// never switched, so a stall's latency is unchanged. Nothing is lost while a
// pane is off: exits and restarts come from the "dead" subscription, not
// from output; a limit banner drawn meanwhile is on the screen looked at when
// the pane goes quiet (judgeLimit reads screens), and the probe's output is
// scanned for limits as all output is; a new control client (reconnect)
// starts with every pane on, and so does a new run in a pane (freshRun).
//
// Pause and continue, not off and on: tmux 3.3a's off keeps the output it
// had queued for the client, and on then writes it from the pane's new
// offset: the server reads past its buffer and dies (SIGSEGV, seen within
// a few off/on cycles of a printing pane; hundreds of pause/continue cycles
// leave it running). And a tmux with issue 3250 fixed stops reading a pane
// that every attached client has off (its program would block while nobody
// is attached); a paused pane is read on. The client is told %pause and
// %continue, which the loop ignores; without pause-after (refresh-client -f)
// tmux never pauses a pane by itself.
//
// The switch commands go through the control client off the loop (the loop
// never waits on tmux), by switchWorker, in the order the loop asked for them.
const (
	steadyGap   = 200 * time.Millisecond
	steadyFor   = time.Second
	probeWindow = 2 * steadyGap // a pane still printing steadily writes within it
	// switchMinQuiet: a shorter quiet period has no room for the probe's
	// window, and a pane is looked at so often that switching saves little.
	switchMinQuiet = time.Second
	// What refresh-client -A is told after "%N:" (see above).
	switchOffWord = "pause"
	switchOnWord  = "continue"
)

type outputMode int

const (
	outputOn    outputMode = iota // every output notified: the quiet timer decides
	outputOff                     // switched off; the probe timer waits for the quiet period's end
	outputProbe                   // switched on again for the probe's window
)

// outSwitch is one pane's output switch.
type outSwitch struct {
	mode   outputMode
	since  time.Time // (on) when the current run of steady output began
	probed time.Time // (probe) when the probe switched the output on
	timer  timer     // the probe's: end of the quiet period (off), of the window (probe)
	// look: the pane, still printing, had its screen looked at (a probe
	// found it printing, or it printed for a quiet period without a look);
	// seen is the screen the last such look saw. Codex 0.171.0 redraws a
	// screen that does not change about once a second, at its approval
	// dialog too (always with --no-daemon, now and then without): it is
	// never quiet. When two looks a quiet period apart see the same screen,
	// it is judged as a quiet one is. Only for the agent CLIs that do so
	// (redraws): a busy Claude Code or plain process costs no such looks.
	look bool
	seen string
}

// switchReq asks switchWorker to switch pane's output on or off for the
// control client ctl: a request for a client since replaced goes to that
// old one (a new client starts with every pane on).
type switchReq struct {
	ctl  controlClient
	pane string
	on   bool
}

// steadyOutput follows w's output when it comes at now (the one before it
// came at prev) and switches it as above. It reports whether the output is
// to be handled as usual (quiet and settle timers); false while it is off
// (what still comes was written before tmux took the switch) or when the
// probe found the pane still printing.
func (s *daemon) steadyOutput(w *paneWatch, prev, now time.Time) bool {
	if w.host != "" {
		return true // a remote pane's output is never switched off (its id is not in refresh-client -A's form)
	}
	switch w.out.mode {
	case outputOff:
		return false
	case outputProbe:
		s.switchOff(w)
		switch {
		case w.live.State == state.StateStalled || w.live.State == state.StateIdle:
			s.requestCapture(w) // as its quiet timer looks at it every quiet period
		case s.redraws(w):
			w.out.look = true // judged only if its screen did not change (printingBut)
			s.requestCapture(w)
		}
		return false
	}
	if w.out.since.IsZero() || now.Sub(prev) > steadyGap {
		w.out.since = now
		return true
	}
	if now.Sub(w.out.since) >= steadyFor && s.quiet >= switchMinQuiet {
		s.switchOff(w)
		return false
	}
	return true
}

// switchOff switches w's output off and has it probed once the quiet period
// has passed since its last output.
func (s *daemon) switchOff(w *paneWatch) {
	w.out.mode = outputOff
	s.sendSwitch(w.id, false)
	s.armProbe(w, s.quiet)
}

func (s *daemon) armProbe(w *paneWatch, d time.Duration) {
	if w.out.timer == nil {
		w.out.timer = s.clock.AfterFunc(d, func() { s.probeFire <- w })
		return
	}
	w.out.timer.Reset(d)
}

// probeFired: the quiet period of a pane switched off is over (probe it),
// or a probe's window is (nothing came: on again).
func (s *daemon) probeFired(w *paneWatch) {
	if !s.watched(w) {
		return
	}
	now := s.clock.Now()
	switch w.out.mode {
	case outputOff:
		if left := s.quiet - now.Sub(w.lastOutput); left > 0 {
			s.armProbe(w, left) // output written before it was off came late
			return
		}
		w.out.mode, w.out.probed = outputProbe, now
		s.sendSwitch(w.id, true)
		s.armProbe(w, probeWindow)
	case outputProbe:
		w.out.mode, w.out.since = outputOn, time.Time{}
		// It may have written up to the probe: quiet from there on.
		w.lastOutput = w.out.probed
		s.arm(w, max(s.quiet-now.Sub(w.out.probed), 0))
		s.requestCapture(w)
	}
}

// outputOnAgain switches w's output on when it is not (a new run in its
// pane: its output must be seen from its first line).
func (s *daemon) outputOnAgain(w *paneWatch) {
	if w.out.mode != outputOn {
		s.sendSwitch(w.id, true)
	}
	s.forgetSwitch(w)
}

// forgetSwitch: w's output is on (a new control client starts with every
// pane on).
func (s *daemon) forgetSwitch(w *paneWatch) {
	if w.out.timer != nil {
		w.out.timer.Stop()
	}
	w.out.mode, w.out.since = outputOn, time.Time{}
}

// sendSwitch has switchWorker switch pane's output for the current client.
func (s *daemon) sendSwitch(pane string, on bool) {
	s.switchQ <- switchReq{ctl: s.control(), pane: pane, on: on}
}

// switchWorker sends the loop's switch requests to tmux, those waiting
// together in one refresh-client (one -A each, applied in order).
func (s *daemon) switchWorker(ctx context.Context) {
	for {
		var batch []switchReq
		select {
		case <-ctx.Done():
			return
		case r := <-s.switchQ:
			batch = append(batch, r)
		}
	more:
		for len(batch) < 64 {
			select {
			case r := <-s.switchQ:
				batch = append(batch, r)
			default:
				break more
			}
		}
		s.switchOutput(ctx, batch)
	}
}

// switchOutput sends batch, one refresh-client per client in it. tmux takes
// a pane that is gone without an error; an error here means the client is
// going, and a new one starts with every pane on (resync forgets the
// switches).
func (s *daemon) switchOutput(ctx context.Context, batch []switchReq) {
	for len(batch) > 0 {
		ctl := batch[0].ctl
		args := []string{"refresh-client"}
		n := 0
		for ; n < len(batch) && batch[n].ctl == ctl; n++ {
			v := batch[n].pane + ":" + switchOffWord
			if batch[n].on {
				v = batch[n].pane + ":" + switchOnWord
			}
			args = append(args, "-A", v)
		}
		batch = batch[n:]
		if ctl == nil {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if _, err := ctl.Command(cctx, args...); err != nil {
			s.log.Debug("switch output", "err", err)
		}
		cancel()
	}
}

// printingBut tells, of a screen a probe had looked at (the pane still
// printing), whether it is to be judged: when it is the screen the last such
// look saw, a quiet period or more ago. Any other look forgets it.
func (w *paneWatch) printingBut(screen string) (judge bool) {
	if !w.out.look {
		w.out.seen = ""
		return true
	}
	w.out.look = false
	same := screen == w.out.seen
	w.out.seen = screen
	return same
}

// redraws tells whether w's member is an agent CLI that redraws a screen
// that does not change (Codex, Gemini): looked at while it prints.
func (s *daemon) redraws(w *paneWatch) bool {
	m, ok := s.st.Member(w.member)
	return ok && m.Agent != ""
}
