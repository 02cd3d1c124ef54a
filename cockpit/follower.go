package cockpit

// A follower follows one team for the feed: what changes in its folder, its
// status looked at again, its events read; control.go has its control client.

import (
	"context"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/teamctl/teamctl/team/model"
)

// follower follows one team; its loop owns every field but those the
// goroutines it starts hand back through results.
type follower struct {
	f       *LiveFeed
	team    string
	ctx     context.Context // ends when the team is no longer followed
	cancel  context.CancelFunc
	done    chan struct{}
	results chan func()   // work done off the loop, applied on it
	refocus chan struct{} // the feed's focus changed

	ctl        PaneFollow // while the focus is in this team
	release    func()     // gives the feed's control-client slot back
	connecting bool
	backoff    time.Duration
	panes      []string // the members' panes at the last look
	up         bool     // the team was up at the last look

	focus                    string
	statusBusy, statusWant   bool
	captureBusy, captureWant bool
	lastCapture              time.Time
	captureTimer             *time.Timer
	captureFire              chan struct{}
}

// put hands msg to the program, unless the team is no longer followed.
func (fl *follower) put(msg tea.Msg) { fl.f.out.putLive(fl.ctx, msg) }

// post runs fn on the loop (unless the follower ended).
func (fl *follower) post(ctx context.Context, fn func()) {
	select {
	case fl.results <- fn:
	case <-ctx.Done():
	}
}

func (fl *follower) run(ctx context.Context) {
	defer close(fl.done)
	defer func() {
		if fl.ctl != nil {
			fl.ctl.Close()
			fl.release()
		}
		if fl.captureTimer != nil {
			fl.captureTimer.Stop()
		}
	}()
	fl.captureFire = make(chan struct{}, 1)
	var changes <-chan Changes
	var tail EventReader
	if w, err := fl.f.src.Watch(ctx, WatchOptions{Team: fl.team}); err != nil {
		fl.put(StatusMsg{Team: fl.team, Err: err}) // the team is looked at all the same: now, and on tmux's word
	} else {
		changes = w.C
	}
	if t, err := fl.f.src.TailEvents(fl.team, eventsBack); err == nil {
		tail = t
	}
	fl.readEvents(tail)
	fl.focus, _ = fl.focusHere()
	fl.wantStatus(ctx)

	for {
		var notes <-chan model.PaneNote
		var lost <-chan struct{}
		if fl.ctl != nil {
			notes, lost = fl.ctl.Notes(), fl.ctl.Done()
		}
		select {
		case <-ctx.Done():
			return
		case c, ok := <-changes:
			if !ok {
				changes = nil
				continue
			}
			// Lost changes are every change: look again at everything.
			what := c.Of(fl.team)
			if what&changedStatus != 0 {
				fl.wantStatus(ctx)
			}
			if what&changedEvents != 0 {
				fl.readEvents(tail)
			}
		case n, ok := <-notes:
			if ok {
				fl.note(ctx, n)
			}
		case <-lost:
			fl.hangUp()
			fl.wantStatus(ctx) // reconnects while the team is up and focused
		case fn := <-fl.results:
			fn()
		case <-fl.refocus:
			fl.followFocus(ctx)
		case <-fl.captureFire:
			fl.wantCapture(ctx)
		}
	}
}

// readEvents hands on the events appended since the last read.
func (fl *follower) readEvents(tail EventReader) {
	if tail == nil {
		return
	}
	var evs []Event
	tail.Read(func(e Event) { evs = append(evs, e) }) // a read error: the next change reads again
	if len(evs) > 0 {
		fl.put(EventsMsg{Team: fl.team, Events: evs})
	}
}

// wantStatus looks at the team again, off the loop; asked while a look runs,
// it looks once more after it.
func (fl *follower) wantStatus(ctx context.Context) {
	if fl.statusBusy {
		fl.statusWant = true
		return
	}
	fl.statusBusy, fl.statusWant = true, false
	go func() {
		lctx, cancel := context.WithTimeout(ctx, lookTimeout)
		snap, err := fl.f.src.Status(lctx, fl.team)
		cancel()
		if ctx.Err() != nil {
			return
		}
		fl.post(ctx, func() {
			fl.statusBusy = false
			fl.put(StatusMsg{Team: fl.team, Snap: snap, Err: err})
			if err == nil {
				fl.looked(ctx, snap)
			}
			if fl.statusWant {
				fl.wantStatus(ctx)
			}
		})
	}()
}

// looked follows up a new look: connect to the team's tmux server when the
// team is up and focused and no client is, pause the output of panes that
// appeared.
func (fl *follower) looked(ctx context.Context, snap *Snapshot) {
	fl.up = snap.StoppedAt == nil
	var panes []string
	for _, m := range snap.Members {
		panes = append(panes, m.Pane)
	}
	changed := !slices.Equal(panes, fl.panes)
	fl.panes = panes
	_, here := fl.focusHere()
	switch {
	case fl.ctl == nil && fl.up && here && !fl.connecting:
		fl.connect(ctx, panes)
	case fl.ctl != nil && changed:
		fl.syncPaused(ctx)
	}
}

// focusHere is the focused pane, when the focus is in this team.
func (fl *follower) focusHere() (pane string, here bool) {
	team, pane := fl.f.focused()
	if team != fl.team {
		return "", false
	}
	return pane, true
}
