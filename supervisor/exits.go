package supervisor

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/state"
)

// deadFormat is the "dead" subscription's value.
const deadFormat = "#{pane_dead}/#{pane_dead_status}/#{pane_dead_signal}/#{pane_pid}"

// askDead reads a pane's dead value through the control client (off the loop,
// which must never wait on tmux) and hands it back to the loop.
func (s *daemon) askDead(ctx context.Context, pane string) {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	lines, err := s.control().Command(cctx, "display-message", "-p", "-t", pane, deadFormat)
	if err != nil || len(lines) != 1 {
		return // the pane or the server went; the layout notifications say so
	}
	select {
	case s.deadValues <- [2]string{pane, lines[0]}:
	case <-ctx.Done():
	}
}

// deadChanged handles the "dead" subscription: "1/STATUS/SIGNAL/PID" when a
// pane's program has exited, "0///PID" while it runs. The pid tells a new exit
// from an old one: tmux reports a value only when it changed, and a program
// that dies again within a second of its restart changes nothing but the pid.
func (s *daemon) deadChanged(ctx context.Context, pane, value string) {
	w := s.panes[pane]
	if w == nil {
		s.syncLater()
		return
	}
	s.log.Debug("pane dead subscription", "pane", pane, "value", value, "state", w.live.State, "exit_pid", w.exitPID)
	f := strings.SplitN(value, "/", 4)
	if len(f) < 4 {
		return
	}
	if pid, err := strconv.Atoi(f[3]); err == nil {
		w.pid = pid
	}
	if f[0] != "1" {
		// Running again, relaunched by someone else (`teamctl up`, `teamctl
		// restart`): no restart of ours is due any more, and a failed member
		// starts with a clean crash-loop window.
		if (w.live.State == state.StateExited || w.live.State == state.StateFailed) && f[3] != w.exitPID {
			s.relaunched(w)
			s.freshRun(w)
			w.live = &state.LiveMember{Pane: w.id, State: state.StateRunning, Since: s.clock.Now().UTC()}
			s.live.Members[w.member] = w.live
			s.saveLive()
			if m, ok := s.st.Member(w.member); ok {
				s.leadStarted(m)
			}
		}
		return
	}
	if f[3] == w.exitPID {
		return
	}
	if w.live.State == state.StateFailed {
		// A process we did not start died: someone relaunched the failed
		// member and it ended again before we saw it run.
		s.relaunched(w)
	}
	var code *int
	if f[1] != "" {
		c, _ := strconv.Atoi(f[1])
		code = &c
	}
	sig, _ := strconv.Atoi(f[2])
	detail := ""
	if code == nil && sig == 0 {
		// tmux marks a pane dead when its terminal closes, which may come before
		// it reaps the program — and on a busy machine it sometimes does not
		// reap it until another of its children exits. The program is then a
		// zombie of the tmux server, whose exit status Linux still holds.
		var zc *int
		var zs int
		ok := false
		if w.host == "" { // a remote pane's pid is its host's: only tmux there tells
			zc, zs, ok = proc.ZombieStatus(w.pid, s.serverPID)
		}
		switch {
		case ok:
			code, sig = zc, zs
		case w.host == "" && s.serverPID > 0 && proc.ChildAlive(w.pid, s.serverPID):
			// Its terminal closed but the program runs on: it has not ended
			// yet. Look again while it lives (tmux's subscription tells too).
			s.clock.AfterFunc(200*time.Millisecond, func() { s.askDead(ctx, pane) })
			return
		case w.statusTries < 40:
			// Reaped meanwhile: tmux has the status now or shortly, and its
			// subscription may not tell again. Ask it directly, a little later
			// (a bounded number of times).
			w.statusTries++
			s.clock.AfterFunc(25*time.Millisecond, func() { s.askDead(ctx, pane) })
			return
		default:
			detail = "exit status unknown (tmux never learnt it); counted as a failure"
		}
	}
	w.statusTries = 0
	w.exitPID = f[3]
	now := s.clock.Now().UTC()
	w.live = &state.LiveMember{Pane: w.id, State: state.StateExited, Since: now, ExitCode: code}
	s.live.Members[w.member] = w.live
	s.event(state.Event{Kind: state.EventExit, Member: w.member, Pane: w.id, ExitCode: code, Signal: sig, Origin: w.origin, Detail: detail})
	s.keepWords(w, code, sig)
	s.afterExit(w, code, sig, now)
	s.saveLive()
}

// relaunched forgets a member's restart history when someone else relaunched
// it: a pending restart of ours is cancelled and the crash-loop window starts
// again, so its next exits are reported and handled like a fresh start's.
func (s *daemon) relaunched(w *paneWatch) {
	if w.restartTimer != nil {
		w.restartTimer.Stop()
	}
	w.exits = nil
}
