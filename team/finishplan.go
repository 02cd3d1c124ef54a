package team

import (
	"context"
	"errors"
	"fmt"

	"github.com/teamctl/teamctl/owned"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// FinishPlan is what Finish would do for one member, read without acting:
// what the web page shows before it asks to confirm.
type FinishPlan struct {
	Member   string `json:"member"`
	Stop     bool   `json:"stop"` // it runs: stopped first, as teamctl stop does
	Branch   string `json:"branch"`
	Into     string `json:"into,omitempty"`
	Commits  int    `json:"commits"`  // the commits of Branch that Into lacks
	Worktree string `json:"worktree"` // removed
	// KeptBranch says why Branch is kept; "" when it is deleted.
	KeptBranch string `json:"kept_branch,omitempty"`
	// Refusal is why Finish would refuse it now (nothing would be done).
	Refusal string `json:"refusal,omitempty"`
}

// Lines say p as a person reads it, one step a line.
func (p *FinishPlan) Lines() []string {
	if p.Refusal != "" {
		return []string{"refused: " + p.Refusal}
	}
	var out []string
	if p.Stop {
		out = append(out, fmt.Sprintf("stop %s first (it runs), as teamctl stop does", p.Member))
	}
	if p.Commits == 0 {
		out = append(out, fmt.Sprintf("land nothing: %s already has all of %s", p.Into, p.Branch))
	} else {
		out = append(out, fmt.Sprintf("merge %d commit(s) of %s into %s", p.Commits, p.Branch, p.Into))
	}
	out = append(out, "remove the worktree "+p.Worktree+" (what it would lose is kept in a snapshot first)")
	if p.KeptBranch == "" {
		out = append(out, "delete the branch "+p.Branch)
	} else {
		out = append(out, "keep the branch "+p.Branch+" ("+p.KeptBranch+")")
	}
	return out
}

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
