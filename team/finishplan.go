package team

import (
	"context"
	"errors"
	"fmt"

	"github.com/teamctl/teamctl/owned"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// PlanFinish reads what Finish would do for member now (`teamctl finish
// MEMBER`, into its recorded base), doing nothing: the checks Finish makes
// first, the branch it lands in and how many commits, the worktree it
// removes and whether the branch goes. A refusal is said in the plan, not
// returned as an error; an error is a plan that could not be read.
func (t *Team) PlanFinish(ctx context.Context, member string) (*FinishPlan, error) {
	st, err := state.Load(t.Name)
	if err != nil {
		return nil, err
	}
	p := &FinishPlan{Member: member}
	wt, err := worktreeOf(st, member)
	if err != nil {
		p.Refusal = err.Error()
		return p, nil
	}
	p.Branch, p.Worktree = wt.Branch, wt.Path
	var running *RunningError
	switch err := t.checkDown(ctx, st, member); {
	case errors.As(err, &running):
		p.Stop = true
	case err != nil:
		return nil, err
	}
	if err := owned.CheckPlace(ctx, t.Name, st, *wt); err != nil {
		p.Refusal = fmt.Sprintf("%v: finish removes only worktrees teamctl made", err)
		return p, nil
	}
	_, _, into, err := landTarget(ctx, st, member, MergeOptions{})
	if err != nil {
		p.Refusal = err.Error()
		return p, nil
	}
	p.Into = into
	if p.Commits, err = worktrees.CountCommits(ctx, wt.Main, into, wt.Branch); err != nil {
		return nil, err
	}
	p.KeptBranch = t.keptBranch(ctx, st, wt)
	return p, nil
}
