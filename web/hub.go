package web

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team/model"
	"github.com/teamctl/teamctl/team/view"
)

const (
	// eventsBack is how far back in events.jsonl a team's events start.
	eventsBack = 32 << 10
	// eventsKept is how many of a team's latest events the page gets.
	eventsKept = 60
	// lookTimeout bounds one look at a team (its files and tmux).
	lookTimeout = 10 * time.Second
	// gather is how long the watch lets a burst of writes pile up: one look
	// for many, well inside the page's 300 ms.
	gather = 30 * time.Millisecond
)

// View is what the page shows, pushed whole on every change: the teams that
// are up, their members in the order both cockpits list them (Rows, with
// every text the page shows of them), and each team's latest events. It
// holds no clock of its own: a duration is text (Row.For), made again
// every second while a page looks (tick), and sent only when it changed.
type View struct {
	Teams    []TeamView `json:"teams"`
	Rows     []Row      `json:"rows"`
	Cost     string     `json:"cost"` // every team's together (view.TotalCost)
	ReadOnly bool       `json:"read_only"`
}

// TeamView is one team that is up.
type TeamView struct {
	Status *model.Status `json:"status"`
	Cost   string        `json:"cost"` // its members' together (view.TeamCost)
	Events []state.Event `json:"events"`
	// Dialogs are the Claude Code dialogs its stalled members wait at, by
	// member, as their screens showed them when the stall was looked at.
	Dialogs map[string]*DialogView `json:"dialogs,omitempty"`
}

// Row is a member in the order both cockpits list them, every text made
// in Go (team/view): the page draws them as they are.
type Row = view.Row

// hub follows the teams through one watch of every team's folder (the one
// `status -w` and `top` use) and hands each subscriber the latest View.
type hub struct {
	b        Backend
	only     string // the one team shown, "" for every team up
	readOnly bool
	log      *slog.Logger

	mu       sync.Mutex
	view     []byte // the latest View, as JSON
	lastRows []Row  // its rows
	seq      uint64
	subs     map[chan struct{}]bool
	status   map[string]*model.Status          // every team with state, as last looked at
	dialogs  map[string]map[string]*DialogView // the dialogs its stalled members wait at
	events   map[string][]state.Event          // the teams' latest events
	tails    map[string]EventReader            // the teams' events, where the last read ended
}

func newHub(b Backend, only string, readOnly bool, log *slog.Logger) *hub {
	return &hub{b: b, only: only, readOnly: readOnly, log: log, subs: map[chan struct{}]bool{},
		status: map[string]*model.Status{}, dialogs: map[string]map[string]*DialogView{}, events: map[string][]state.Event{}, tails: map[string]EventReader{}}
}

// run looks at every team, then again at each whose folder changes, until
// ctx ends. ready is closed once the first View is made.
func (h *hub) run(ctx context.Context, w *state.Watcher, ready chan<- struct{}) {
	h.lookAll(ctx)
	close(ready)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			// Durations are text made here: made again while a page looks,
			// and sent only when one changed.
			if h.watched() {
				h.publish()
			}
		case ch, ok := <-w.C:
			if !ok {
				h.log.Error("the watch of the teams' folders ended; the page no longer updates")
				return
			}
			if ch.Lost {
				h.lookAll(ctx)
				continue
			}
			for t, c := range ch.Teams {
				if h.only != "" && t != h.only {
					continue
				}
				if c&changedEvents != 0 {
					h.readEvents(t)
				}
				if c&changedStatus != 0 {
					h.look(ctx, t)
				}
			}
			h.publish()
		}
	}
}

func (h *hub) lookAll(ctx context.Context) {
	names, err := h.b.Teams()
	if err != nil {
		h.log.Warn("list the teams", "err", err)
	}
	seen := map[string]bool{}
	for _, t := range names {
		if h.only != "" && t != h.only {
			continue
		}
		seen[t] = true
		h.readEvents(t)
		h.look(ctx, t)
	}
	h.mu.Lock()
	for t := range h.status {
		if !seen[t] {
			delete(h.status, t)
			delete(h.dialogs, t)
			delete(h.events, t)
			delete(h.tails, t)
		}
	}
	h.mu.Unlock()
	h.publish()
}

// look takes a new look at team's status.
func (h *hub) look(ctx context.Context, name string) {
	ctx, cancel := context.WithTimeout(ctx, lookTimeout)
	defer cancel()
	s, err := h.b.Status(ctx, name)
	var dialogs map[string]*DialogView
	if err == nil {
		dialogs = h.dialogsOf(ctx, s)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if err != nil {
		delete(h.status, name) // gone, or not a team to show
		delete(h.dialogs, name)
		return
	}
	h.status[name] = s
	h.dialogs[name] = dialogs
}

// dialogsOf reads the dialog on each stalled member's screen.
func (h *hub) dialogsOf(ctx context.Context, s *model.Status) map[string]*DialogView {
	var out map[string]*DialogView
	for _, m := range s.Members {
		if m.State != stateStalled || m.Stall == nil {
			continue
		}
		screen, err := h.b.Screen(ctx, s.Team, m.Name)
		if err != nil {
			continue
		}
		if v := readDialogView(screen, m.Stall.Pattern); v != nil {
			if out == nil {
				out = map[string]*DialogView{}
			}
			out[m.Name] = v
		}
	}
	return out
}

// readEvents reads what was appended to team's events since the last read.
func (h *hub) readEvents(name string) {
	h.mu.Lock()
	tail := h.tails[name]
	h.mu.Unlock()
	if tail == nil {
		t, err := h.b.TailEvents(name, eventsBack)
		if err != nil {
			return
		}
		tail = t
	}
	var got []state.Event
	err := tail.Read(func(e state.Event) { got = append(got, e) })
	h.mu.Lock()
	defer h.mu.Unlock()
	if err != nil {
		delete(h.tails, name) // read anew next time
		return
	}
	h.tails[name] = tail
	evs := append(h.events[name], got...)
	if len(evs) > eventsKept {
		evs = slices.Clone(evs[len(evs)-eventsKept:])
	}
	h.events[name] = evs
}

// publish makes the View of what is known and wakes every subscriber.
func (h *hub) publish() {
	h.mu.Lock()
	defer h.mu.Unlock()
	v := View{Teams: []TeamView{}, Rows: []Row{}, ReadOnly: h.readOnly}
	names := slices.Sorted(maps.Keys(h.status))
	all := make([]*model.Status, 0, len(names))
	for _, t := range names {
		all = append(all, h.status[t])
	}
	up := view.TeamsUp(all)
	for _, s := range up {
		evs := h.events[s.Team]
		if evs == nil {
			evs = []state.Event{}
		}
		v.Teams = append(v.Teams, TeamView{Status: s, Cost: view.TeamCost(s), Events: evs, Dialogs: h.dialogs[s.Team]})
	}
	v.Cost = view.TotalCost(up)
	h.lastRows = v.Rows
	v.Rows = append(v.Rows, view.Rows(up, time.Now())...)
	b, err := json.Marshal(v)
	if err != nil {
		h.log.Error("make the page's view", "err", err)
		return
	}
	if string(b) == string(h.view) {
		return
	}
	h.view = b
	h.seq++
	for c := range h.subs {
		select {
		case c <- struct{}{}:
		default: // it has one to take: it takes the latest
		}
	}
}

// rows are the rows of the latest View.
func (h *hub) rows() []Row {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lastRows
}

// watched: a page follows the view.
func (h *hub) watched() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs) > 0
}

// current is the latest View, as JSON.
func (h *hub) current() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.view
}

// subscribe returns a channel woken on every new View, and its end.
func (h *hub) subscribe() (chan struct{}, func()) {
	c := make(chan struct{}, 1)
	h.mu.Lock()
	h.subs[c] = true
	h.mu.Unlock()
	return c, func() {
		h.mu.Lock()
		delete(h.subs, c)
		h.mu.Unlock()
	}
}

// status of team's member, as last looked at.
func (h *hub) member(name, member string) (model.MemberStatus, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.status[name]
	if s == nil {
		return model.MemberStatus{}, false
	}
	for _, m := range s.Members {
		if m.Name == member {
			return m, true
		}
	}
	return model.MemberStatus{}, false
}
