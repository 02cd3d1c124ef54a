package cockpit

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/teamctl/teamctl/team/model"
)

// Source is what the feed reads of a team: the same status `teamctl status`
// shows, its events, and what changes in the folders those live in (one
// team's, or every team's).
type Source interface {
	Status(ctx context.Context, team string) (*Snapshot, error)
	TailEvents(team string, back int64) (EventReader, error)
	Watch(ctx context.Context, o WatchOptions) (*Watcher, error)
	// Follow follows the team's panes live (team's Follow): found through
	// panes, the members' panes.
	Follow(ctx context.Context, team string, panes []string) (PaneFollow, error)
}

// PaneFollow is a team's panes followed live through one control client
// (team.Follow): their exits, panes coming and going, the shown pane's
// output and screen.
type PaneFollow interface {
	Notes() <-chan model.PaneNote
	Done() <-chan struct{}
	Close()
	// Show lets pane's output through and pauses every other pane's.
	Show(ctx context.Context, pane string) error
	Capture(ctx context.Context, pane string) ([]string, error)
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
	// OutputGather is how long the control client lets the focused pane's
	// output pile up between reads (team.FollowOptions.Gather): a pane printing steadily
	// then wakes the cockpit as often as it is captured, not once a line.
	OutputGather = captureGap
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
	src  Source
	ctx  context.Context
	out  *outbox
	slot chan struct{} // held while a control client runs: one at a time

	mu        sync.Mutex
	cur       map[string]*follower // the teams followed
	all       []*follower          // and those before, which may still be ending
	focusTeam string
	focus     string
	scout     *scout // while others are watched
	scouts    []*scout
}

// NewFeed returns a feed that runs until ctx ends or Close.
func NewFeed(ctx context.Context, src Source) *LiveFeed {
	return &LiveFeed{src: src, ctx: ctx, out: newOutbox(), slot: make(chan struct{}, 1),
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
			refocus: make(chan struct{}, 1)}
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
