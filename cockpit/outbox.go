package cockpit

// What the feed found, held until the program takes it.

import (
	"context"
	"maps"
	"slices"
	"sync"

	tea "charm.land/bubbletea/v2"
)

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
