package state

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Change is what changed in a team's folder, as a set of bits: a watch
// gathers several into one.
type Change uint8

// The changes a watch sees. Only these files of a team's folder count; its
// lock, the supervisor's log, the lead queue and the last words never wake a
// view.
const (
	// ChangedState: state.json written or removed (up, down, the
	// supervisor's records): the team may have come up or gone down.
	ChangedState Change = 1 << iota
	// ChangedLive: live.json written: what the supervisor knows of each
	// member now.
	ChangedLive
	// ChangedEvents: events.jsonl appended to, or rotated.
	ChangedEvents
	// ChangedFolder, watching every team: the team's folder itself made,
	// removed or changed, so a team may have appeared or gone.
	ChangedFolder

	changedAll = ChangedState | ChangedLive | ChangedEvents | ChangedFolder
)

// fileChange is the change a write of a team's file, by name, is: 0 for a
// file that does not count.
func fileChange(name string) Change {
	switch name {
	case "state.json":
		return ChangedState
	case "live.json":
		return ChangedLive
	case "events.jsonl":
		return ChangedEvents
	}
	return 0
}

// Changes are what a watch saw since it last delivered, by team.
type Changes struct {
	Teams map[string]Change
	// Lost: the watch lost changes (the kernel's queue overflowed), so any
	// file may have changed and any team come or gone: look again at all.
	Lost bool
}

// Of is what changed of team: everything, when changes were lost.
func (c Changes) Of(team string) Change {
	if c.Lost {
		return changedAll
	}
	return c.Teams[team]
}

func (c *Changes) add(team string, ch Change) {
	if c.Teams == nil {
		c.Teams = map[string]Change{}
	}
	c.Teams[team] |= ch
}

// WatchOptions say what a watch watches and how often it delivers.
type WatchOptions struct {
	// Team is the one team whose folder is watched; "" watches every team's,
	// and the folder of teams for teams appearing and going (ChangedFolder).
	Team string
	// Debounce is how long changes gather after the first before they are
	// delivered, so that a burst of writes is one delivery; 0 delivers at
	// once. Either way, what changes while the receiver is busy is
	// delivered as one when it takes it.
	Debounce time.Duration
	// Skip, watching every team, leaves out the folders of the teams it
	// reports (another watch has them); asked again whenever a team's
	// folder comes or goes, and on Rescan. Still, a skipped team's folder
	// made or removed is a ChangedFolder.
	Skip func(team string) bool
}

// Watcher delivers what changes in teams' folders.
type Watcher struct {
	// C delivers the changes gathered, until the watch ends (its context
	// ended, or the system's watch failed); it is then closed.
	C <-chan Changes

	o       WatchOptions
	dir     string // the team's folder, or the folder of teams
	fw      *fsnotify.Watcher
	watched map[string]bool // watching every team: the teams' folders watched
	rescan  chan chan struct{}
	done    chan struct{}
}

// Watch watches one team's state folder, or every team's (o.Team ""), with
// fsnotify, and delivers on C what changed of the files that count (see
// Change), until ctx ends. The folder must exist; watching every team, the
// folder of teams (no team was ever up without one). No polling: a change
// is delivered as soon as it is written (and o.Debounce has passed).
func Watch(ctx context.Context, o WatchOptions) (*Watcher, error) {
	var what, dir string
	var err error
	if o.Team == "" {
		what = "the teams' state"
		dir, err = Root()
	} else {
		what = "the team's state"
		dir, err = Dir(o.Team)
	}
	if err != nil {
		return nil, err
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", what, err)
	}
	if err := fw.Add(dir); err != nil {
		fw.Close()
		return nil, fmt.Errorf("watch %s folder %s: %w", what, dir, err)
	}
	c := make(chan Changes)
	w := &Watcher{C: c, o: o, dir: dir, fw: fw, rescan: make(chan chan struct{}), done: make(chan struct{})}
	if o.Team == "" {
		w.watched = map[string]bool{}
		w.sync()
	}
	go w.run(ctx, c)
	return w, nil
}

// Rescan asks o.Skip again of every team's folder, and returns once each is
// watched or not as it now says (or the watch has ended).
func (w *Watcher) Rescan() {
	ack := make(chan struct{})
	select {
	case w.rescan <- ack:
		<-ack
	case <-w.done:
	}
}

func (w *Watcher) run(ctx context.Context, c chan<- Changes) {
	defer close(c)
	defer close(w.done)
	defer w.fw.Close()
	var (
		pending Changes
		out     chan<- Changes // c, while pending is due
		timer   *time.Timer
		fire    <-chan time.Time // the debounce's end, while it runs
	)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	due := func() {
		switch {
		case out != nil || fire != nil:
		case w.o.Debounce <= 0:
			out = c
		default:
			timer = time.NewTimer(w.o.Debounce)
			fire = timer.C
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			if w.note(ev, &pending) {
				due()
			}
		case _, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			// An overflowed queue lost changes; no other error loses less.
			pending.Lost = true
			w.sync()
			due()
		case ack := <-w.rescan:
			w.sync()
			close(ack)
		case <-fire:
			fire, out = nil, c
		case out <- pending:
			pending, out = Changes{}, nil
		}
	}
}

// note adds what ev changed to pending, and reports whether it was anything.
func (w *Watcher) note(ev fsnotify.Event, pending *Changes) bool {
	parent, name := filepath.Dir(ev.Name), filepath.Base(ev.Name)
	switch {
	case w.o.Team != "" && parent == w.dir:
		if ch := fileChange(name); ch != 0 {
			pending.add(w.o.Team, ch)
			return true
		}
	case w.o.Team == "" && parent == w.dir && ValidTeamName(name):
		w.sync() // a team's folder made or removed
		pending.add(name, ChangedFolder)
		return true
	case w.o.Team == "" && filepath.Dir(parent) == w.dir && w.watched[filepath.Base(parent)]:
		if ch := fileChange(name); ch != 0 {
			pending.add(filepath.Base(parent), ch)
			return true
		}
	}
	return false
}

// sync, watching every team, watches the folder of each team not skipped,
// and no other. A symlink is not a team's folder (ReadDir does not follow
// it).
func (w *Watcher) sync() {
	if w.o.Team != "" {
		return
	}
	ents, err := os.ReadDir(w.dir)
	if err != nil {
		return
	}
	seen := map[string]bool{}
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || !ValidTeamName(name) {
			continue
		}
		seen[name] = true
		want := w.o.Skip == nil || !w.o.Skip(name)
		switch {
		case want && !w.watched[name]:
			w.watched[name] = w.fw.Add(filepath.Join(w.dir, name)) == nil
		case !want && w.watched[name]:
			w.fw.Remove(filepath.Join(w.dir, name)) // gone already, if removed
			delete(w.watched, name)
		}
	}
	for name := range w.watched {
		if !seen[name] {
			w.fw.Remove(filepath.Join(w.dir, name))
			delete(w.watched, name)
		}
	}
}
