package clean

import (
	"context"
	"fmt"
	"time"

	"github.com/teamctl/teamctl/worktrees"
)

// Snapshot takes the snapshot clean --force would of member's worktree at
// path (on branch) in the repository of main, named for the time at, and
// records the repository so that `teamctl snapshots` lists it from anywhere.
func Snapshot(ctx context.Context, team, member, main, path, branch string, at time.Time) (worktrees.Snapshot, error) {
	ref, err := worktrees.SnapshotRef(team, member, at)
	if err != nil {
		return worktrees.Snapshot{}, err
	}
	s, err := worktrees.TakeSnapshot(ctx, main, path, branch, ref)
	if err != nil {
		return s, err
	}
	if err := recordRepo(main); err != nil {
		return s, fmt.Errorf("snapshot %s taken, but `teamctl snapshots` lists it only from inside %s: %w", s.Name(), main, err)
	}
	return s, nil
}
