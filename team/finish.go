package team

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/teamctl/teamctl/owned"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// snapshots is the record of the repositories snapshots were taken in, in
// teamctl's state root, so that `teamctl snapshots` lists finish's from
// anywhere.
var snapshots = worktrees.SnapshotRecord{Dir: state.SnapshotRecordDir}

// Finish merges each member's work (as Merge does, in order, stopping at
// the first refusal), then removes its worktree and the branch teamctl made
// for it, by clean's rules (package owned): only a worktree at teamctl's place that git
// lists, only a member that is not running (down, or stopped: `teamctl
// stop`; finish's command offers to stop it), and whatever
// removing them would lose — files that are not committed, commits the
// target does not have, as after --squash — first kept in a snapshot
// (`teamctl restore` brings it back). The member's worktree record leaves
// state.json; the member stays in the team.
func (t *Team) Finish(ctx context.Context, names []string, all bool, o MergeOptions) (*FinishResult, error) {
	st, err := state.Load(t.Name)
	if err != nil {
		return nil, err
	}
	if all {
		names = nil
		for _, wt := range st.Worktrees {
			names = append(names, wt.Member)
		}
		for _, rw := range st.RemoteWorktrees {
			names = append(names, rw.Member)
		}
	}
	res := &FinishResult{Team: t.Name, Finished: []Finished{}}
	for i, name := range names {
		f, err := t.finishMember(ctx, st, name, o)
		if err != nil {
			res.Refused = refusal(name, err, names[i+1:])
			break
		}
		res.Finished = append(res.Finished, f)
	}
	return res, nil
}

func (t *Team) finishMember(ctx context.Context, st *state.Team, member string, o MergeOptions) (Finished, error) {
	if rw, ok := st.RemoteWorktree(member); ok {
		return t.finishRemote(ctx, st, rw, o)
	}
	f := Finished{}
	wt, err := worktreeOf(st, member)
	if err != nil {
		return f, err
	}
	if err := t.checkDown(ctx, st, member); err != nil {
		return f, err
	}
	if err := owned.CheckPlace(ctx, t.Name, st, *wt); err != nil {
		return f, fmt.Errorf("%w: finish removes only worktrees teamctl made", err)
	}
	if f.Landed, err = landMember(ctx, st, member, o); err != nil {
		return f, err
	}
	t.recordLanded(f.Landed, "teamctl finish")
	landed := fmt.Sprintf("%s's work landed on %s (%.10s), but", member, f.Into, f.New)
	if err := t.removeWorktree(ctx, st, wt, &f); err != nil {
		return f, fmt.Errorf("%s %w", landed, err)
	}
	if err := t.forgetWorktree(ctx, member); err != nil {
		return f, fmt.Errorf("%s its worktree and branch are gone and state.json still records them: %w", landed, err)
	}
	return f, nil
}

// checkDown refuses a member whose program runs.
func (t *Team) checkDown(ctx context.Context, st *state.Team, member string) error {
	if !st.Running() {
		return nil
	}
	s, err := t.Status(ctx)
	if err != nil {
		return fmt.Errorf("whether %s runs: %w", member, err)
	}
	i := slices.IndexFunc(s.Members, func(m MemberStatus) bool { return m.Name == member })
	if i >= 0 && !s.Members[i].State.Ended() && !t.stopped(ctx, st, member) {
		return &RunningError{Member: member, State: s.Members[i].State}
	}
	return nil
}

// RunningError is finish's refusal of a member whose program runs: `teamctl
// stop` stops it first (finish asks to).
type RunningError struct {
	Member string
	State  state.MemberState
}

func (e *RunningError) Error() string {
	return fmt.Sprintf("%s is %s: finish removes the worktree of a member that is not running; stop it first (teamctl stop %s), or merge now and finish later", e.Member, e.State, e.Member)
}

// stopped reports whether member was stopped (teamctl stop) and has ended.
func (t *Team) stopped(ctx context.Context, st *state.Team, member string) bool {
	live, _ := state.ReadLive(t.Name)
	if h, held := live.HeldMember(member); !held || !h.Stopped {
		return false
	}
	m, ok := st.Member(member)
	if !ok {
		return false
	}
	_, alive, err := t.livePane(ctx, m)
	return err == nil && !alive
}

// removeWorktree removes wt's worktree and, when teamctl made it, its
// branch, once a snapshot holds what either would lose.
func (t *Team) removeWorktree(ctx context.Context, st *state.Team, wt *state.Worktree, f *Finished) error {
	f.Worktree = wt.Path
	path := wt.Path
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		path = "" // gone already: its branch is what is left
	} else if _, err := worktrees.Linked(ctx, wt.Main, path); err != nil {
		return fmt.Errorf("%w: its folder is left as it is (look, and remove it yourself)", err)
	}
	var loss worktrees.Loss
	var err error
	if path != "" {
		loss, err = worktrees.Inspect(ctx, path, f.Into)
	} else {
		loss, err = worktrees.BranchLoss(ctx, wt.Main, wt.Branch, f.Into)
	}
	if err != nil {
		return err
	}
	if !loss.Empty() {
		s, err := snapshots.Take(ctx, t.Name, wt.Member, wt.Main, path, wt.Branch, t.w.clock.Now())
		if err != nil {
			return fmt.Errorf("it holds %s, and the snapshot to keep it failed (nothing removed): %w", loss.String(), err)
		}
		f.Snapshot, f.Restore = &s, "teamctl restore "+s.Name()
	}
	if path != "" {
		if err := worktrees.Remove(ctx, wt.Main, path, !loss.Empty()); err != nil {
			return fmt.Errorf("removing its worktree: %w (run finish again)", err)
		}
	}
	if err := worktrees.Prune(ctx, wt.Main); err != nil {
		return err
	}
	if f.Kept = t.keptBranch(ctx, st, wt); f.Kept == "" {
		if err := worktrees.DeleteBranches(ctx, wt.Main, wt.Branch); err != nil {
			return fmt.Errorf("deleting branch %s: %w", wt.Branch, err)
		}
		f.Branch = wt.Branch
	}
	return nil
}

// keptBranch says why finish keeps wt's branch; "" when it deletes it: only
// a branch teamctl made for that member (clean's rule, package owned).
func (t *Team) keptBranch(ctx context.Context, st *state.Team, wt *state.Worktree) string {
	own := owned.OwnBranch(ctx, t.Name, st, *wt)
	switch {
	case !wt.CreatedBranch:
		return "not made by teamctl"
	case own != nil:
		return "not made by teamctl: " + own.Error()
	case !worktrees.BranchExists(ctx, wt.Main, wt.Branch):
		return "gone already"
	}
	return ""
}

// forgetWorktree drops member's worktree record from state.json, under the
// team's lock.
func (t *Team) forgetWorktree(ctx context.Context, member string) error {
	unlock, err := state.Lock(ctx, t.Name)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := state.Load(t.Name)
	if err != nil {
		return err
	}
	st.Worktrees = slices.DeleteFunc(st.Worktrees, func(w state.Worktree) bool { return w.Member == member })
	return state.Save(st)
}
