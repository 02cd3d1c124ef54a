package cockpit

// A follower's control-mode client, while the focus is in its team: pane
// exits and panes coming and going, every pane's output paused but the
// focused pane's, which is captured as it prints.

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/teamctl/teamctl/team/model"
)

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
	fl.ctl, fl.release = nil, nil
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
		var ctl PaneFollow
		if err == nil {
			if ctl, err = fl.f.src.Follow(cctx, fl.team, members); err != nil {
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

// note handles what the control client says of the panes.
func (fl *follower) note(ctx context.Context, n model.PaneNote) {
	switch n.Kind {
	case model.PaneOutput:
		if n.Pane == fl.focus {
			fl.wantCapture(ctx)
		}
	case model.PaneExit:
		fl.wantStatus(ctx) // an exit, or a restart, that only tmux knows of yet
	case model.PanesChanged:
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
	ctl := fl.ctl
	go func() {
		cctx, cancel := context.WithTimeout(ctx, lookTimeout)
		defer cancel()
		focus, _ := fl.focusHere() // the latest, read in turn (Show takes one at a time)
		ctl.Show(cctx, focus)      // failing, the next change of panes or focus tries again
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
		lines, err := ctl.Capture(cctx, pane)
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
