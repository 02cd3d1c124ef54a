package state

import (
	"context"
	"slices"
	"time"
)

// EventQuery picks events of a team's log, as `teamctl events` shows them.
type EventQuery struct {
	Since  time.Time // those from then on (zero: all)
	Tail   int       // of those, the last Tail; negative: all of them
	Follow bool      // then each new one from Since on, as it is appended, until the context ends
}

// QueryEvents hands fn the events of team that q picks, oldest first, across
// rotations.
func QueryEvents(ctx context.Context, team string, q EventQuery, fn func(Event)) error {
	backlog := func(evs []Event) {
		// Several writers append, so the log is in time order only roughly:
		// every event is looked at, not a search's cut.
		evs = slices.DeleteFunc(evs, func(e Event) bool { return e.Time.Before(q.Since) })
		if q.Tail >= 0 && len(evs) > q.Tail {
			evs = evs[len(evs)-q.Tail:]
		}
		for _, e := range evs {
			fn(e)
		}
	}
	if q.Follow {
		return FollowEventsAfter(ctx, team, backlog, func(e Event) {
			if !e.Time.Before(q.Since) {
				fn(e)
			}
		})
	}
	evs, err := ReadEvents(team)
	if err != nil {
		return err
	}
	backlog(evs)
	return nil
}
