package cockpit

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/fsnotify/fsnotify"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// Source is what the feed reads of a team: the same status `teamctl status`
// shows, its events, and the folder those live in.
type Source interface {
	Status(ctx context.Context, team string) (*Snapshot, error)
	TailEvents(team string, back int64) (EventReader, error)
	StateDir(team string) (string, error)
}

// EventReader gives the events appended since its last Read.
type EventReader interface {
	Read(fn func(Event)) error
}

const (
	// eventsBack is how far back in events.jsonl the feed starts: about 300
	// events, more than the model keeps.
	eventsBack = 64 << 10
	// captureGap is the least time between two captures of the focused pane
	// while it prints: its screen is refreshed on its output, at most this
	// often (the first output after a quiet spell is captured at once).
	captureGap = 500 * time.Millisecond
	// outputGather is how long the control client lets the focused pane's
	// output pile up between reads (tmux.Coalesce): a pane printing steadily
	// then wakes the cockpit as often as it is captured, not once a line.
	outputGather = captureGap
	// lookTimeout bounds one look at the team (its files and tmux) or a capture.
	lookTimeout = 10 * time.Second
	// reconnectMax is the longest wait before trying the team's tmux server
	// again while its state says it is up.
	reconnectMax = 5 * time.Second
)

// teamFiles are the team's files whose change is a change of its status.
var teamFiles = map[string]bool{"state.json": true, "live.json": true}

// LiveFeed is the Feed of a running program. It follows one team at a time:
//
//   - the team's state folder, with fsnotify: a change of state.json or
//     live.json is a new look at the status (supervisor.GetStatus, as `status`
//     has it), an append to events.jsonl is read from where the last read
//     ended. No polling: a change is on screen as soon as it is written.
//   - the team's tmux server, through one control-mode client (tmux -C): pane
//     exits (a subscription) and panes coming and going are a new look at the
//     status; the focused pane's %output is a capture-pane of it (through the
//     same client, no process), at most every captureGap while it prints.
//     Every other pane's output is paused for this client (refresh-client -A
//     %N:pause), so a team printing steadily costs the cockpit nothing but the
//     pane on screen; a paused pane is still read by tmux, so no member ever
//     waits on the cockpit.
//
// What it finds goes to the program through an outbox that keeps the latest
// status and screen and the events since the last delivery, so a program that
// is suspended (attached to a member) never holds the feed up.
type LiveFeed struct {
	src     Source
	tmuxBin string
	ctx     context.Context
	out     *outbox

	mu       sync.Mutex
	cur      *follower   // the team followed
	all      []*follower // and those before, which may still be ending
	focus    string
	focusSig chan struct{}
}

// NewFeed returns a feed that runs until ctx ends or Close.
func NewFeed(ctx context.Context, src Source, tmuxBin string) *LiveFeed {
	return &LiveFeed{src: src, tmuxBin: tmuxBin, ctx: ctx, out: newOutbox(), focusSig: make(chan struct{}, 1)}
}

// Start delivers what the feed finds with send (tea.Program.Send), in order,
// until ctx ends.
func (f *LiveFeed) Start(send func(tea.Msg)) { go f.out.run(f.ctx, send) }

// Follow follows team, and no longer the team before. It does not wait for
// the one before to stop (Close does), so the program may call it from Update.
func (f *LiveFeed) Follow(team string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cur != nil {
		f.cur.cancel()
	}
	ctx, cancel := context.WithCancel(f.ctx)
	fl := &follower{f: f, team: team, cancel: cancel, done: make(chan struct{}), results: make(chan func(), 16),
		srv: &tmux.Server{Socket: state.SocketName(team), Bin: f.tmuxBin}}
	f.cur = fl
	f.all = slices.DeleteFunc(f.all, func(o *follower) bool { // forget those that ended
		select {
		case <-o.done:
			return true
		default:
			return false
		}
	})
	f.all = append(f.all, fl)
	go fl.run(ctx)
}

// Focus makes pane the one whose screen is captured ("" for none). It does
// not wait, so the program may call it from Update.
func (f *LiveFeed) Focus(pane string) {
	f.mu.Lock()
	f.focus = pane
	f.mu.Unlock()
	select {
	case f.focusSig <- struct{}{}:
	default:
	}
}

func (f *LiveFeed) focused() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.focus
}

// Close stops following, and waits for every follower to end.
func (f *LiveFeed) Close() {
	f.mu.Lock()
	all := f.all
	f.cur, f.all = nil, nil
	f.mu.Unlock()
	for _, fl := range all {
		fl.cancel()
		<-fl.done
	}
}

// follower follows one team; its loop owns every field but those the
// goroutines it starts hand back through results.
type follower struct {
	f       *LiveFeed
	team    string
	cancel  context.CancelFunc
	done    chan struct{}
	results chan func() // work done off the loop, applied on it
	srv     *tmux.Server

	ctl        *tmux.Control
	connecting bool
	backoff    time.Duration
	panes      []string // the members' panes at the last look

	focus                    string
	statusBusy, statusWant   bool
	captureBusy, captureWant bool
	lastCapture              time.Time
	captureTimer             *time.Timer
	captureFire              chan struct{}

	pz *pauser // the client's paused panes
}

// pauser pauses panes' output for one control client, one sequence at a time.
type pauser struct {
	mu     sync.Mutex
	ctl    *tmux.Control
	paused map[string]bool
}

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
		}
		if fl.captureTimer != nil {
			fl.captureTimer.Stop()
		}
	}()
	fl.captureFire = make(chan struct{}, 1)
	var events <-chan fsnotify.Event
	var errs <-chan error
	var tail EventReader
	if dir, err := fl.f.src.StateDir(fl.team); err != nil {
		fl.f.out.put(StatusMsg{Team: fl.team, Err: err})
		return
	} else if w, err := fsnotify.NewWatcher(); err != nil {
		fl.f.out.put(StatusMsg{Team: fl.team, Err: fmt.Errorf("watch the team's state: %w", err)})
	} else {
		defer w.Close()
		if err := w.Add(dir); err != nil {
			fl.f.out.put(StatusMsg{Team: fl.team, Err: fmt.Errorf("watch the team's state folder %s: %w", dir, err)})
		}
		events, errs = w.Events, w.Errors
	}
	if t, err := fl.f.src.TailEvents(fl.team, eventsBack); err == nil {
		tail = t
	}
	fl.readEvents(tail)
	fl.focus = fl.f.focused()
	fl.wantStatus(ctx)

	for {
		var notes <-chan tmux.Notification
		var lost <-chan struct{}
		if fl.ctl != nil {
			notes, lost = fl.ctl.Notes(), fl.ctl.Done()
		}
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			switch name := filepath.Base(ev.Name); {
			case teamFiles[name]:
				fl.wantStatus(ctx)
			case name == "events.jsonl":
				fl.readEvents(tail)
			}
		case _, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			// An overflowed queue lost changes: look again at everything.
			fl.wantStatus(ctx)
			fl.readEvents(tail)
		case n, ok := <-notes:
			if ok {
				fl.note(ctx, n)
			}
		case <-lost:
			fl.ctl.Close()
			fl.ctl = nil
			fl.wantStatus(ctx) // reconnects while the team is up
		case fn := <-fl.results:
			fn()
		case <-fl.f.focusSig:
			fl.setFocus(ctx, fl.f.focused())
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
		fl.f.out.put(EventsMsg{Team: fl.team, Events: evs})
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
			fl.f.out.put(StatusMsg{Team: fl.team, Snap: snap, Err: err})
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
// team is up and no client is, pause the output of panes that appeared.
func (fl *follower) looked(ctx context.Context, snap *Snapshot) {
	running := snap.StoppedAt == nil
	var panes []string
	for _, m := range snap.Members {
		panes = append(panes, m.Pane)
	}
	changed := !slices.Equal(panes, fl.panes)
	fl.panes = panes
	switch {
	case fl.ctl == nil && running && !fl.connecting:
		fl.connect(ctx, panes)
	case fl.ctl != nil && changed:
		fl.syncPaused(ctx)
	}
}

// connect attaches a control client to the team's session (found through a
// member's pane) and subscribes to pane exits, off the loop.
func (fl *follower) connect(ctx context.Context, members []string) {
	fl.connecting = true
	go func() {
		cctx, cancel := context.WithTimeout(ctx, lookTimeout)
		defer cancel()
		ctl, err := fl.dial(cctx, members)
		fl.post(ctx, func() {
			fl.connecting = false
			if err != nil {
				// Try again while the team is up; a change of its state tries too.
				fl.backoff = min(max(2*fl.backoff, 250*time.Millisecond), reconnectMax)
				time.AfterFunc(fl.backoff, func() { fl.post(ctx, func() { fl.wantStatus(ctx) }) })
				return
			}
			if ctx.Err() != nil {
				ctl.Close()
				return
			}
			fl.backoff = 0
			fl.ctl = ctl
			fl.pz = &pauser{ctl: ctl, paused: map[string]bool{}}
			fl.syncPaused(ctx)
			fl.lastCapture = time.Time{}
			fl.wantCapture(ctx)
		})
		if ctx.Err() != nil && ctl != nil {
			ctl.Close()
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
		focus := fl.f.focused()
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
				fl.f.out.put(ScreenMsg{Team: fl.team, Pane: pane, Lines: lines})
			}
			if fl.captureWant {
				fl.wantCapture(ctx)
			}
		})
	}()
}

// outbox holds what the feed found until the program takes it: the latest
// status and screen, and the events since the last delivery.
type outbox struct {
	mu     sync.Mutex
	status *StatusMsg
	screen *ScreenMsg
	events *EventsMsg
	wake   chan struct{}
}

func newOutbox() *outbox { return &outbox{wake: make(chan struct{}, 1)} }

func (o *outbox) put(msg tea.Msg) {
	o.mu.Lock()
	switch msg := msg.(type) {
	case StatusMsg:
		o.status = &msg
	case ScreenMsg:
		o.screen = &msg
	case EventsMsg:
		if o.events != nil && o.events.Team == msg.Team {
			o.events.Events = append(o.events.Events, msg.Events...)
			if n := len(o.events.Events) - maxEvents; n > 0 {
				o.events.Events = slices.Delete(o.events.Events, 0, n)
			}
		} else {
			o.events = &msg
		}
	}
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

func (o *outbox) run(ctx context.Context, send func(tea.Msg)) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-o.wake:
		}
		o.mu.Lock()
		status, events, screen := o.status, o.events, o.screen
		o.status, o.events, o.screen = nil, nil, nil
		o.mu.Unlock()
		if status != nil {
			send(*status)
		}
		if events != nil {
			send(*events)
		}
		if screen != nil {
			send(*screen)
		}
	}
}
