package cockpit

// The scout: word of teams the feed does not follow coming up or going.

import (
	"context"
)

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
