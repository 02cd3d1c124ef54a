package clean

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/teamctl/teamctl/owned"
	"github.com/teamctl/teamctl/worktrees"
)

// branches plans the branches teamctl made for the team's worktrees: deleted,
// after their worktree, when every commit is in the branch's base. A branch
// with commits not merged is kept (KeptBranch: the work is on it, and the
// team's record goes all the same), or with Force deleted once a snapshot
// holds its commits. git is asked once per repository and base, and deletes
// each repository's branches in one call.
//
// A name from state.json is checked before git sees it, and a branch git
// shows the member's worktree is not on is not the worktree's to delete.
func (p *planner) branches(ctx context.Context, team string, list []candidate, wtOf map[string]wtPlan, before []*Action) []*Action {
	byMain := map[string][]candidate{}
	var mains []string
	for _, w := range list {
		if !w.Recorded || !w.CreatedBranch || w.Branch == "" || w.Main == "" {
			continue
		}
		if err := worktrees.CheckBranch(w.Branch); err != nil {
			// Not a branch teamctl could have made: nothing to keep or wait for.
			p.add(&Action{Step: StepBranch, Team: team, Target: w.Branch, Why: "recorded by state.json for " + w.Member, Result: Kept, Detail: "left alone: " + err.Error()})
			continue
		}
		base, err := owned.Branch(ctx, team, w.Worktree, w.branch)
		if err != nil {
			// state.json says teamctl made it; nothing else does: a person's.
			p.add(&Action{Step: StepBranch, Team: team, Target: w.Branch, Why: "recorded by state.json for " + w.Member, Result: Kept, Detail: "left alone, not a branch teamctl made for " + w.Member + ": " + err.Error()})
			continue
		}
		w.Base = base // what teamctl recorded, not what state.json says
		if _, ok := byMain[w.Main]; !ok {
			mains = append(mains, w.Main)
		}
		byMain[w.Main] = append(byMain[w.Main], w)
	}
	var acts []*Action
	for _, main := range mains {
		ws := byMain[main]
		existing, err := worktrees.Branches(ctx, main)
		if err != nil {
			p.note("branches of %s: %v; left alone", main, err)
			continue
		}
		unmerged := map[string]bool{}
		for _, base := range dedupeBases(ws) {
			var names []string
			for _, w := range ws {
				if w.Base == base {
					names = append(names, w.Branch)
				}
			}
			var not map[string]bool
			if base != "" {
				rev := base
				if heldBy(base, existing, ws) {
					rev = "refs/heads/" + base // the branch, whatever else the name could mean
				}
				not, err = worktrees.NotMerged(ctx, main, rev, names)
			}
			if base == "" || err != nil {
				// No base to ask about: each branch is looked at on its own below.
				not = map[string]bool{}
				for _, n := range names {
					not[n] = true
				}
			}
			for n, v := range not {
				unmerged[n] = unmerged[n] || v
			}
		}
		batch := &batch{run: func(ctx context.Context, ready []*Action) {
			names := make([]string, len(ready))
			for i, a := range ready {
				names[i] = a.Target
			}
			err := worktrees.DeleteBranches(ctx, main, names...)
			for _, a := range ready {
				if err != nil {
					a.Result, a.Detail = Failed, err.Error()
				} else {
					a.Result = Done
				}
			}
		}}
		for _, w := range ws {
			wt := wtOf[w.Path]
			a := &Action{Step: StepBranch, Team: team, Target: w.Branch, Why: "made by teamctl for " + w.Member, needs: []*Action{wt.a}, batch: batch}
			acts = append(acts, p.add(a))
			if !existing[w.Branch] {
				a.Result, a.Detail, a.batch = Done, "already gone", nil
				continue
			}
			if e := wt.entry; e != nil && (e.Detached || e.Branch != w.Branch) {
				on := "a detached HEAD"
				if !e.Detached {
					on = "branch " + e.Branch
				}
				a.Result, a.batch = KeptBranch, nil
				a.Detail = fmt.Sprintf("kept branch %s: its worktree is on %s, not on it (git branch -D %s once it is not needed)", w.Branch, on, w.Branch)
				continue
			}
			against := w.Base
			if !unmerged[w.Branch] {
				if heldBy(w.Base, existing, ws) {
					// Merged into its base, a branch that stays: every commit
					// of it is on that branch; nothing to ask git (a git log
					// a branch was a third of a 16-member clean's git).
					continue
				}
				// Merged into its base; still, commits no other ref holds
				// (a base that is a commit, or moved back since) are never
				// deleted without a snapshot.
				against = ""
			}
			loss, err := worktrees.BranchLoss(ctx, main, w.Branch, against)
			switch {
			case err != nil:
				a.Result, a.Detail, a.batch = Failed, err.Error(), nil
			case loss.Empty():
			case !p.o.Force:
				a.Loss = &loss
				a.Result, a.batch = KeptBranch, nil
				a.Detail = keptBranch(w.Branch, loss)
			default:
				a.Loss = &loss
				path := ""
				if wt.entry != nil {
					path = w.Path // on the branch (above): its snapshot holds the branch's commits too
				}
				sp := p.snapshotOf(team, w.Member, main, path, before)
				sp.branch = w.Branch
				sp.because(fmt.Sprintf("--force deletes branch %s, which holds %s", w.Branch, loss.String()))
				a.needs = append(a.needs, sp.a)
				a.Detail = "--force: its commits are kept in snapshot " + sp.a.Target
			}
		}
	}
	return acts
}

// keptBranch says which branch stays with how many commits, and what the
// person may do with it.
func keptBranch(branch string, loss worktrees.Loss) string {
	n := fmt.Sprintf("%d commit", len(loss.Commits))
	if len(loss.Commits) != 1 {
		n += "s"
	}
	where := "on no other branch"
	if loss.Base != "" {
		where = "not merged into " + loss.Base
	}
	return fmt.Sprintf("kept branch %s: %s %s (git merge %s, or git branch -D %s)", branch, n, where, branch, branch)
}

// heldBy reports whether base is a branch of the repository (of those git
// listed, existing) that this clean does not delete: a branch merged into it
// (git branch --no-merged refs/heads/<base> does not list it) loses no commit
// when deleted. A teamctl branch (teamctl/…) may be another team's that the
// same clean deletes: git log is asked then, as before.
func heldBy(base string, existing map[string]bool, ws []candidate) bool {
	if base == "" || !existing[base] || strings.HasPrefix(base, "teamctl/") {
		return false
	}
	return !slices.ContainsFunc(ws, func(w candidate) bool { return w.Branch == base })
}

func dedupeBases(ws []candidate) []string {
	var out []string
	for _, w := range ws {
		if !slices.Contains(out, w.Base) {
			out = append(out, w.Base)
		}
	}
	return out
}
