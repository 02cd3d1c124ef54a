package clean

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/teamctl/teamctl/state"
)

// LockWait bounds how long clean waits for a team's lock (an up or down of
// the team in progress) before it gives up, having done nothing.
var LockWait = 2 * time.Minute

// heldKey marks, in a context, the teams whose lock this clean holds: what
// it does under them takes them no second time (flock would wait for
// itself).
type heldKey struct{}

func holding(ctx context.Context, team string) bool {
	held, _ := ctx.Value(heldKey{}).([]string)
	return slices.Contains(held, team)
}

// lockTeam takes team's lock unless this clean holds it already.
func lockTeam(ctx context.Context, team string) (func(), error) {
	if holding(ctx, team) {
		return func() {}, nil
	}
	return state.Lock(ctx, team)
}

// lockTeams takes the locks of the teams that have a state folder (the
// lock file is in it; Lock would make one for a team that has none), in
// order, and returns a context that says they are held.
func lockTeams(ctx context.Context, teams []string) (context.Context, func(), error) {
	return lockTeamsWaiting(ctx, teams, LockWait)
}

// tryLockTeams is lockTeams that waits for no lock: an error when one of
// them is held (or cannot be taken), with none of them taken.
func tryLockTeams(ctx context.Context, teams []string) (context.Context, func(), error) {
	return lockTeamsWaiting(ctx, teams, 0)
}

// lockTeamsWaiting is lockTeams, waiting at most wait for each lock (0: a
// lock held is not waited for).
func lockTeamsWaiting(ctx context.Context, teams []string, wait time.Duration) (context.Context, func(), error) {
	var unlocks []func()
	release := func() {
		for i := len(unlocks) - 1; i >= 0; i-- {
			unlocks[i]()
		}
	}
	var held []string
	for _, team := range slices.Sorted(slices.Values(teams)) {
		dir, err := state.Dir(team)
		if err != nil || !exists(dir) {
			continue
		}
		lctx, cancel := context.WithTimeout(ctx, wait)
		unlock, err := state.Lock(lctx, team)
		cancel()
		if err != nil {
			release()
			return ctx, nil, fmt.Errorf("team %s: %w (an up or down of it still runs?); nothing done", team, err)
		}
		unlocks = append(unlocks, unlock)
		held = append(held, team)
	}
	return context.WithValue(ctx, heldKey{}, held), release, nil
}
