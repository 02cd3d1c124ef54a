package cockpit

// A follower's control-mode client, while the focus is in its team: pane
// exits and panes coming and going, every pane's output paused but the
// focused pane's, which is captured as it prints.

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/teamctl/teamctl/tmux"
)

// pauser pauses panes' output for one control client, one sequence at a time.
type pauser struct {
	mu     sync.Mutex
	ctl    *tmux.Control
	paused map[string]bool
}

// followFocus follows the feed's focus: into this team, a control client
// to its server and the pane captured; out of it, the client ended, so that
// the next team's may start.
func (fl *follower) followFocus(ctx context.Context) {
	pane, here := fl.focusHere()
	if !here {
		fl.focus = ""
		fl.hangUp()
		return
	}
	if fl.ctl == nil && fl.up && !fl.connecting {
		fl.connect(ctx, fl.panes)
	}
	fl.setFocus(ctx, pane)
}

// hangUp ends the control client, off the loop (Close waits for tmux), and
// then gives its slot back.
func (fl *follower) hangUp() {
	if fl.ctl == nil {
		return
	}
	ctl, release := fl.ctl, fl.release
	fl.ctl, fl.release, fl.pz = nil, nil, nil
	go func() {
		ctl.Close()
		release()
	}()
}

// connect attaches a control client to the team's session (found through a
// member's pane) and subscribes to pane exits, off the loop, once the
// client of the team focused before has ended.
func (fl *follower) connect(ctx context.Context, members []string) {
	fl.connecting = true
	go func() {
		cctx, cancel := context.WithTimeout(ctx, lookTimeout)
		defer cancel()
		release, err := fl.f.takeSlot(cctx)
		var ctl *tmux.Control
		if err == nil {
			if ctl, err = fl.dial(cctx, members); err != nil {
				release()
			}
		}
		// The client is the loop's, or ended here if the follower ends
		// first: whoever claims it, never both, never neither (a client left
		// running would hold the slot for good).
		var claimed atomic.Bool
		handled := make(chan struct{})
		fl.post(ctx, func() {
			defer close(handled)
			fl.connecting = false
			if err != nil {
				// Try again while the team is up; a change of its state tries too.
				fl.backoff = min(max(2*fl.backoff, 250*time.Millisecond), reconnectMax)
				time.AfterFunc(fl.backoff, func() { fl.post(ctx, func() { fl.wantStatus(ctx) }) })
				return
			}
			if !claimed.CompareAndSwap(false, true) {
				return
			}
			if _, here := fl.focusHere(); ctx.Err() != nil || !here {
				// The focus left while it connected: end it, off the loop.
				go func() {
					ctl.Close()
					release()
				}()
				return
			}
			fl.backoff = 0
			fl.ctl, fl.release = ctl, release
			fl.pz = &pauser{ctl: ctl, paused: map[string]bool{}}
			fl.syncPaused(ctx)
			fl.lastCapture = time.Time{}
			fl.wantCapture(ctx)
		})
		select {
		case <-handled:
		case <-ctx.Done():
			if ctl != nil && claimed.CompareAndSwap(false, true) {
				ctl.Close()
				release()
			}
		}
	}()
}

func (fl *follower) dial(ctx context.Context, members []string) (*tmux.Control, error) {
	panes, err := fl.srv.ListPanes(ctx)
	if err != nil {
		return nil, err
	}
	target := tmux.SessionTarget(fl.team)
	for _, p := range panes {
		if slices.Contains(members, p.ID) && p.SessionID != "" {
			target = p.SessionID // the team's session, whatever it is called now
			break
		}
	}
	ctl, err := fl.srv.Control(ctx, target)
	if err != nil {
		return nil, err
	}
	if _, err := ctl.Command(ctx, "refresh-client", "-B", "dead:%*:#{pane_dead}/#{pane_dead_status}/#{pane_pid}"); err != nil {
		ctl.Close()
		return nil, fmt.Errorf("subscribe to pane exits: %w", err)
	}
	return ctl, nil
}

// note handles a control-mode notification.
func (fl *follower) note(ctx context.Context, n tmux.Notification) {
	switch n.Kind {
	case "output":
		if n.Pane == fl.focus {
			fl.wantCapture(ctx)
		}
	case "subscription-changed":
		if n.Name == "dead" {
			fl.wantStatus(ctx) // an exit, or a restart, that only tmux knows of yet
		}
	case "layout-change", "window-add", "window-close", "unlinked-window-close", "sessions-changed", "window-pane-changed":
		fl.wantStatus(ctx)
		fl.syncPaused(ctx)
	}
}

// setFocus moves the capture to another pane: its output flows, the one
// before is paused, and it is captured at once.
func (fl *follower) setFocus(ctx context.Context, pane string) {
	if pane == fl.focus {
		return
	}
	fl.focus = pane
	fl.syncPaused(ctx)
	fl.lastCapture = time.Time{}
	fl.wantCapture(ctx)
}

// syncPaused pauses every pane's output for this client but the focused
// pane's, off the loop. Pausing is tmux's own flow control for control
// clients: the pane is still read (its program never blocks) and its output
// is dropped for this client alone.
func (fl *follower) syncPaused(ctx context.Context) {
	if fl.ctl == nil {
		return
	}
	pz := fl.pz
	go func() {
		pz.mu.Lock()
		defer pz.mu.Unlock()
		cctx, cancel := context.WithTimeout(ctx, lookTimeout)
		defer cancel()
		panes, err := pz.ctl.Command(cctx, "list-panes", "-a", "-F", "#{pane_id}")
		if err != nil {
			return
		}
		focus, _ := fl.focusHere()
		for _, p := range panes {
			pause := p != focus
			if pz.paused[p] == pause {
				continue
			}
			how := "continue"
			if pause {
				how = "pause"
			}
			if _, err := pz.ctl.Command(cctx, "refresh-client", "-A", p+":"+how); err != nil {
				return
			}
			pz.paused[p] = pause
		}
	}()
}

// wantCapture captures the focused pane, off the loop, at most every
// captureGap: asked sooner, it captures once the gap has passed.
func (fl *follower) wantCapture(ctx context.Context) {
	if fl.ctl == nil || fl.focus == "" {
		return
	}
	if fl.captureBusy {
		fl.captureWant = true
		return
	}
	if wait := captureGap - time.Since(fl.lastCapture); wait > 0 {
		if fl.captureTimer == nil {
			fl.captureTimer = time.AfterFunc(wait, func() {
				select {
				case fl.captureFire <- struct{}{}:
				default:
				}
			})
		} else {
			fl.captureTimer.Reset(wait)
		}
		return
	}
	fl.captureBusy, fl.captureWant = true, false
	fl.lastCapture = time.Now()
	ctl, pane := fl.ctl, fl.focus
	go func() {
		cctx, cancel := context.WithTimeout(ctx, lookTimeout)
		lines, err := ctl.Command(cctx, "capture-pane", "-p", "-t", pane)
		cancel()
		fl.post(ctx, func() {
			fl.captureBusy = false
			if err == nil && pane == fl.focus {
				fl.put(ScreenMsg{Team: fl.team, Pane: pane, Lines: lines})
			}
			if fl.captureWant {
				fl.wantCapture(ctx)
			}
		})
	}()
}
