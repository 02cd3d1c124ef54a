package clean

import (
	"context"
	"fmt"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// CheckPlace checks, by clean's rules, that a worktree st (team's
// state.json) records is one teamctl made for a member of the team's
// layout, where the layout puts it, and where teamctl puts worktrees
// (<folder>/<team>/<member>, no symlink below the folder): the only place
// teamctl removes one from, as `teamctl finish` does one member's.
func CheckPlace(ctx context.Context, team string, st *state.Team, w state.Worktree) error {
	l, lerr := parseLayout(st.LayoutPath)
	rw, _, err := layoutPlace(ctx, l, lerr, w)
	if err == nil {
		_, err = teamctlPlace(team, rw)
	}
	if err != nil {
		return fmt.Errorf("the worktree %s of %s: %w", w.Path, w.Member, err)
	}
	return nil
}

// OwnBranch says, by clean's rules, why the branch of a worktree record st
// (team's state) holds is not teamctl's to delete (nil when it is): see
// layoutPlace and ownBranch.
func OwnBranch(ctx context.Context, team string, st *state.Team, w state.Worktree) error {
	l, lerr := parseLayout(st.LayoutPath)
	_, p, err := layoutPlace(ctx, l, lerr, w)
	if err == nil {
		_, err = ownBranch(ctx, team, w, p.Branch)
	}
	return err
}

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
