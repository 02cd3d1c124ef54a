package tmux

import (
	"context"
	"fmt"
	"time"
)

// followGap is the least time between two reads of a followed pane while it
// prints: its output wakes the follow, which reads it back at most this often.
var followGap = 100 * time.Millisecond

// FollowPane prints pane's last n lines (history and screen, TrimCapture'd,
// WithoutDeadNotice: tmux's notice comes late, if at all, when a program
// ends; in one call to print, made even when there are none), then the
// lines it prints from then on, until ctx ends, the pane's
// program ends (after its last lines) or the pane goes. It is woken by the
// pane's output, through a control client attached to target (the pane's
// session), not by polling: each wake reads the pane back (HistoryArgs,
// through the client: no process; at most every followGap while it prints)
// and prints what NewLines finds in it. The client
// pauses every other pane's output for itself as it shows up (refresh-client
// -A %N:pause; tmux still reads those panes, so no program waits on it).
func (s *Server) FollowPane(ctx context.Context, target, pane string, n int, print func([]string)) error {
	ctl, err := s.Control(ctx, target)
	if err != nil {
		return err
	}
	defer ctl.Close()
	f := &follow{ctl: ctl, pane: pane, window: max(n, HistoryLines), print: print,
		captured: make(chan captured, 1), gone: make(chan bool, 1), done: make(chan struct{})}
	defer close(f.done)
	// Subscribed before the first read: an exit after it is not missed. To
	// every pane's, not to the one's (%N): tmux 3.3a reports a one-pane
	// subscription's first value and never its changes.
	if _, err := ctl.Command(ctx, "refresh-client", "-B", "dead:%*:#{pane_dead}"); err != nil {
		return fmt.Errorf("follow %s: %w", pane, err)
	}
	first, err := ctl.Command(ctx, HistoryArgs(pane, f.window)...)
	if err != nil {
		return fmt.Errorf("follow %s: %w", pane, err)
	}
	f.prev = WithoutDeadNotice(TrimCapture(first))
	// Called even with none: the caller learns where the history ends and
	// the new lines begin (teamctl logs of every member orders by it).
	lines := f.prev
	print(lines[max(0, len(lines)-n):])
	return f.run(ctx)
}

// follow is one FollowPane's loop; it alone touches these but the channels.
type follow struct {
	ctl    *Control
	pane   string
	window int
	print  func([]string)
	prev   []string

	busy, again bool
	dead        bool // its program ended
	final       bool // the read after that is on its way: the last one
	last        time.Time
	timer       *time.Timer
	fire        <-chan time.Time
	captured    chan captured
	gone        chan bool
	done        chan struct{} // closed when FollowPane returns
	paused      map[string]bool
}

type captured struct {
	lines []string
	err   error
}

func (f *follow) run(ctx context.Context) error {
	f.paused = map[string]bool{}
	defer func() {
		if f.timer != nil {
			f.timer.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-f.ctl.Done():
			return nil // the server went, and the pane with it
		case n, ok := <-f.ctl.Notes():
			if !ok {
				return nil
			}
			f.note(ctx, n)
		case <-f.fire:
			f.fire = nil
			f.read(ctx)
		case c := <-f.captured:
			f.busy = false
			if c.err != nil {
				f.check(ctx) // gone, most likely
				continue
			}
			cur := WithoutDeadNotice(TrimCapture(c.lines))
			if lines := NewLines(f.prev, cur); len(lines) > 0 {
				f.print(lines)
			}
			f.prev = cur
			if f.final {
				return nil // its last lines are printed
			}
			if f.again || f.dead {
				f.read(ctx)
			}
		case alive := <-f.gone:
			if !alive {
				return nil
			}
		}
	}
}

// note handles a notification of the follow's client.
func (f *follow) note(ctx context.Context, n Notification) {
	switch n.Kind {
	case "output":
		if n.Pane == f.pane {
			f.read(ctx)
		} else if !f.paused[n.Pane] {
			f.paused[n.Pane] = true
			go f.ctl.Command(ctx, "refresh-client", "-A", n.Pane+":pause") // a failure costs only its output
		}
	case "subscription-changed":
		if n.Name == "dead" && n.Pane == f.pane && n.Args == "1" && !f.dead {
			f.dead = true
			f.read(ctx) // its last lines (after the read on its way, if one is)
		}
	case "layout-change", "window-close", "unlinked-window-close", "window-pane-changed", "sessions-changed":
		f.check(ctx)
	}
}

// read reads the pane back, off the loop, at most every followGap: asked
// while a read is on its way, it reads once more after it.
func (f *follow) read(ctx context.Context) {
	if f.busy {
		f.again = true
		return
	}
	if wait := followGap - time.Since(f.last); wait > 0 && !f.dead {
		if f.fire == nil {
			f.timer = time.NewTimer(wait)
			f.fire = f.timer.C
		}
		return
	}
	f.busy, f.again, f.last, f.final = true, false, time.Now(), f.dead
	go func() {
		cctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
		lines, err := f.ctl.Command(cctx, HistoryArgs(f.pane, f.window)...)
		select {
		case f.captured <- captured{lines: lines, err: err}:
		case <-f.done:
		}
	}()
}

// check asks whether the pane is still there, off the loop.
func (f *follow) check(ctx context.Context) {
	go func() {
		cctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
		_, err := f.ctl.Command(cctx, "display-message", "-p", "-t", f.pane, "#{pane_id}")
		select {
		case f.gone <- err == nil:
		case <-f.done:
		}
	}()
}
