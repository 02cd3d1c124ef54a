package cockpit

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// Source is what the feed reads of a team: the same status `teamctl status`
// shows, its events, and what changes in the folders those live in (one
// team's, or every team's).
type Source interface {
	Status(ctx context.Context, team string) (*Snapshot, error)
	TailEvents(team string, back int64) (EventReader, error)
	Watch(ctx context.Context, o WatchOptions) (*Watcher, error)
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

// LiveFeed is the Feed of a running program. It follows the teams shown, each
// by a follower of its own:
//
//   - the team's state folder, through a watch of its own (Source.Watch): a
//     change of state.json or live.json is a new look at the status (team's
//     Status, as `status` has it), an append to events.jsonl is read from
//     where the last read ended. No polling: a change is on screen as soon as
//     it is written.
//   - the focused team's tmux server (the selected member's), through one
//     control-mode client (tmux -C), for that team alone: pane exits (a
//     subscription) and panes coming and going are a new look at the status;
//     the focused pane's %output is a capture-pane of it (through the same
//     client, no process), at most every captureGap while it prints. Every
//     other pane's output is paused for this client (refresh-client -A
//     %N:pause), so a team printing steadily costs the cockpit nothing but the
//     pane on screen; a paused pane is still read by tmux, so no member ever
//     waits on the cockpit. There is one such client at a time (see slot):
//     the other teams are followed through their folders alone, which their
//     supervisors keep.
//
// With others, a scout watches the other teams' folders (a watch of every
// team's, but those followed) and says when a team may have come up or gone:
// a team folder made or removed, a state.json written.
//
// What it finds goes to the program through an outbox that keeps the latest
// status of each team and screen and the events since the last delivery, so a
// program that is suspended (attached to a member) never holds the feed up.
type LiveFeed struct {
	src     Source
	tmuxBin string
	ctx     context.Context
	out     *outbox
	slot    chan struct{} // held while a control client runs: one at a time

	mu        sync.Mutex
	cur       map[string]*follower // the teams followed
	all       []*follower          // and those before, which may still be ending
	focusTeam string
	focus     string
	scout     *scout // while others are watched
	scouts    []*scout
}

// NewFeed returns a feed that runs until ctx ends or Close.
func NewFeed(ctx context.Context, src Source, tmuxBin string) *LiveFeed {
	return &LiveFeed{src: src, tmuxBin: tmuxBin, ctx: ctx, out: newOutbox(), slot: make(chan struct{}, 1),
		cur: map[string]*follower{}}
}

// Start delivers what the feed finds with send (tea.Program.Send), in order,
// until ctx ends.
func (f *LiveFeed) Start(send func(tea.Msg)) { go f.out.run(f.ctx, send) }

// Follow follows teams, and no longer any other; with others, it says too
// when a team not followed may have come up or gone. A team still followed
// goes on as it was. It does not wait for those left to stop (Close does), so
// the program may call it from Update.
func (f *LiveFeed) Follow(teams []string, others bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for t, fl := range f.cur {
		if !slices.Contains(teams, t) {
			fl.cancel()
			delete(f.cur, t)
			f.out.drop(t) // followed again, the team's events start anew
		}
	}
	f.all = slices.DeleteFunc(f.all, func(o *follower) bool { return ended(o.done) }) // forget those that ended
	for _, t := range teams {
		if f.cur[t] != nil {
			continue
		}
		ctx, cancel := context.WithCancel(f.ctx)
		fl := &follower{f: f, team: t, ctx: ctx, cancel: cancel, done: make(chan struct{}), results: make(chan func(), 16),
			refocus: make(chan struct{}, 1), srv: &tmux.Server{Socket: state.SocketName(t), Bin: f.tmuxBin}}
		f.cur[t] = fl
		f.all = append(f.all, fl)
		go fl.run(ctx)
	}
	switch {
	case others && f.scout == nil:
		ctx, cancel := context.WithCancel(f.ctx)
		f.scout = &scout{f: f, cancel: cancel, done: make(chan struct{}), changed: make(chan struct{}, 1)}
		f.scouts = append(slices.DeleteFunc(f.scouts, func(s *scout) bool { return ended(s.done) }), f.scout)
		go f.scout.run(ctx)
	case others:
		signal(f.scout.changed) // the teams it leaves to the followers changed
	case f.scout != nil:
		f.scout.cancel()
		f.scout = nil
	}
}

func ended(done chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// signal wakes whoever waits on ch (a channel of one), once however often.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Focus makes pane, in team's server, the one whose screen is captured
// (pane "" for none; team "" for no server at all). It does not wait, so the
// program may call it from Update.
func (f *LiveFeed) Focus(team, pane string) {
	f.mu.Lock()
	f.focusTeam, f.focus = team, pane
	fls := make([]*follower, 0, len(f.cur))
	for _, fl := range f.cur {
		fls = append(fls, fl)
	}
	f.mu.Unlock()
	for _, fl := range fls {
		signal(fl.refocus)
	}
}

func (f *LiveFeed) focused() (team, pane string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.focusTeam, f.focus
}

func (f *LiveFeed) following(team string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur[team] != nil
}

// takeSlot waits for the one control client's slot; release gives it back
// (once, however often it is called).
func (f *LiveFeed) takeSlot(ctx context.Context) (release func(), err error) {
	select {
	case f.slot <- struct{}{}:
		var once sync.Once
		return func() { once.Do(func() { <-f.slot }) }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for the control client of another team to end: %w", ctx.Err())
	}
}

// Close stops following, and waits for every follower and scout to end.
func (f *LiveFeed) Close() {
	f.mu.Lock()
	all, scouts := f.all, f.scouts
	f.cur, f.all, f.scout, f.scouts = map[string]*follower{}, nil, nil, nil
	f.mu.Unlock()
	for _, fl := range all {
		fl.cancel()
		<-fl.done
	}
	for _, sc := range scouts {
		sc.cancel()
		<-sc.done
	}
}

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
	srv     *tmux.Server

	ctl        *tmux.Control // while the focus is in this team
	release    func()        // gives the feed's control-client slot back
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

	pz *pauser // the client's paused panes
}

// pauser pauses panes' output for one control client, one sequence at a time.
type pauser struct {
	mu     sync.Mutex
	ctl    *tmux.Control
	paused map[string]bool
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
		fl.put(StatusMsg{Team: fl.team, Err: err}) // the status is still looked at, on tmux's word
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
		var notes <-chan tmux.Notification
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

// outbox holds what the feed found until the program takes it: the latest
// status of each team and the latest screen, the events of each team since
// the last delivery, and whether the teams up may have changed.
type outbox struct {
	mu     sync.Mutex
	status map[string]StatusMsg
	screen *ScreenMsg
	events map[string]*EventsMsg
	teams  bool
	wake   chan struct{}
}

func newOutbox() *outbox {
	return &outbox{status: map[string]StatusMsg{}, events: map[string]*EventsMsg{}, wake: make(chan struct{}, 1)}
}

func (o *outbox) put(msg tea.Msg) { o.putLive(context.Background(), msg) }

// putLive puts msg unless ctx has ended: a follower's, whose team may no
// longer be followed. Checked under the lock that drop takes, after the
// follower is cancelled: nothing of it is left in the outbox after drop.
func (o *outbox) putLive(ctx context.Context, msg tea.Msg) {
	o.mu.Lock()
	if ctx.Err() != nil {
		o.mu.Unlock()
		return
	}
	switch msg := msg.(type) {
	case StatusMsg:
		o.status[msg.Team] = msg
	case ScreenMsg:
		o.screen = &msg
	case EventsMsg:
		if old := o.events[msg.Team]; old != nil {
			old.Events = append(old.Events, msg.Events...)
			if n := len(old.Events) - maxEvents; n > 0 {
				old.Events = slices.Delete(old.Events, 0, n)
			}
		} else {
			o.events[msg.Team] = &msg
		}
	case TeamsChangedMsg:
		o.teams = true
	}
	o.mu.Unlock()
	signal(o.wake)
}

// drop forgets what waits of a team no longer followed (its follower
// cancelled first).
func (o *outbox) drop(team string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.status, team)
	delete(o.events, team)
}

func (o *outbox) run(ctx context.Context, send func(tea.Msg)) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-o.wake:
		}
		o.mu.Lock()
		status, events, screen, teams := o.status, o.events, o.screen, o.teams
		o.status, o.events, o.screen, o.teams = map[string]StatusMsg{}, map[string]*EventsMsg{}, nil, false
		o.mu.Unlock()
		for _, t := range slices.Sorted(maps.Keys(status)) {
			send(status[t])
		}
		for _, t := range slices.Sorted(maps.Keys(events)) {
			send(*events[t])
		}
		if screen != nil {
			send(*screen)
		}
		if teams {
			send(TeamsChangedMsg{})
		}
	}
}

// scout watches the teams the feed does not follow, for a team coming up
// or going: a watch of every team's folder but those followed (a team's
// folder made or removed, its state.json written, as `up` and `down` do). It
// only says so; the program then asks which teams are up.
type scout struct {
	f       *LiveFeed
	cancel  context.CancelFunc
	done    chan struct{}
	changed chan struct{} // the teams followed changed
}

func (sc *scout) run(ctx context.Context) {
	defer close(sc.done)
	// A followed team's folder is its follower's.
	w, err := sc.f.src.Watch(ctx, WatchOptions{Skip: sc.f.following})
	if err != nil {
		return // no folder of teams yet: a team up made one, so none is up
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-sc.changed:
			w.Rescan()
		case c, ok := <-w.C:
			if !ok {
				return
			}
			upDown := c.Lost // lost changes: look again
			for _, what := range c.Teams {
				upDown = upDown || what&changedUpDown != 0
			}
			if upDown {
				sc.f.out.put(TeamsChangedMsg{})
			}
		}
	}
}
