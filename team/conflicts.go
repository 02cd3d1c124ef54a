package team

import (
	"context"
	"fmt"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// Conflicts is what merging the members' work would do, uncommitted work
// included: for every pair of members with worktrees of one repository, and
// for each member against its base branch as that moved since the member
// started.
type Conflicts struct {
	Team  string         `json:"team"`
	Pairs []PairConflict `json:"pairs"`
	Bases []BaseConflict `json:"bases"`
	// Skipped are the members with no worktree of their own (they share a
	// checkout, or another's worktree): in no pair.
	Skipped []Skipped `json:"skipped,omitempty"`
	// Unread are the members whose work could not be read, and why.
	Unread []Skipped `json:"unread,omitempty"`
}

// PairConflict is what merging two members' work would do.
type PairConflict struct {
	Members [2]string `json:"members"`
	worktrees.Merge
	Error string `json:"error,omitempty"`
}

// BaseConflict is what merging a member's work into its base branch, as it
// is now, would do.
type BaseConflict struct {
	Member string `json:"member"`
	Base   string `json:"base"`
	Moved  int    `json:"moved"` // the base's commits since the member's branch left it
	worktrees.Merge
	Error string `json:"error,omitempty"`
}

// Skipped is a member left out of the comparisons, and why.
type Skipped struct {
	Member string `json:"member"`
	Why    string `json:"why"`
}

// Failed reports whether a member's work could not be read, or two could
// not be compared.
func (c *Conflicts) Failed() bool {
	failed := len(c.Unread) > 0
	for _, p := range c.Pairs {
		failed = failed || p.Error != ""
	}
	for _, b := range c.Bases {
		failed = failed || b.Error != ""
	}
	return failed
}

// Found reports whether any merge would conflict.
func (c *Conflicts) Found() bool {
	for _, p := range c.Pairs {
		if len(p.Conflicts) > 0 {
			return true
		}
	}
	for _, b := range c.Bases {
		if len(b.Conflicts) > 0 {
			return true
		}
	}
	return false
}

// reviewed is a member's work, ready to be merged with others'.
type reviewed struct {
	wt     *state.Worktree
	commit string // its work as one commit
	base   *worktrees.Base
	from   string // where its branch left the base
}

// Conflicts tells what merging the members' work would do, with git
// merge-tree on commits of each worktree's whole work (made through a
// temporary index: nothing of the members' changes). A git older than 2.38
// is a *worktrees.OldGitError.
func (t *Team) Conflicts(ctx context.Context) (*Conflicts, error) {
	if err := worktrees.CheckMergeTree(ctx); err != nil {
		return nil, err
	}
	st, err := state.Load(t.Name)
	if err != nil {
		return nil, err
	}
	c := &Conflicts{Team: t.Name, Pairs: []PairConflict{}, Bases: []BaseConflict{}}
	targets, err := reviewTargets(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	var works []reviewed
	for _, tg := range targets {
		if tg.wt == nil {
			for _, m := range tg.members {
				c.Skipped = append(c.Skipped, Skipped{m, "no worktree of its own"})
			}
			continue
		}
		for _, m := range tg.members[1:] {
			c.Skipped = append(c.Skipped, Skipped{m, "works in " + tg.wt.Member + "'s worktree"})
		}
		r, err := readReviewed(ctx, tg.wt)
		if err != nil {
			c.Unread = append(c.Unread, Skipped{tg.wt.Member, err.Error()})
			continue
		}
		works = append(works, r)
	}
	sides := make([]worktrees.Side, len(works))
	for i, r := range works {
		sides[i] = worktrees.Side{Name: r.wt.Member, Main: r.wt.Main, Commit: r.commit}
	}
	for _, ab := range worktrees.Pairs(sides) {
		a, b := ab[0], ab[1]
		p := PairConflict{Members: [2]string{a.Name, b.Name}}
		if p.Merge, err = worktrees.TryMerge(ctx, a.Main, a.Commit, b.Commit); err != nil {
			p.Merge, p.Error = noMerge, err.Error()
		}
		c.Pairs = append(c.Pairs, p)
	}
	for _, r := range works {
		if b, ok := againstBase(ctx, r); ok {
			c.Bases = append(c.Bases, b)
		}
	}
	return c, nil
}

func readReviewed(ctx context.Context, wt *state.Worktree) (reviewed, error) {
	w, base, from, err := readWorktree(ctx, wt)
	if err != nil {
		return reviewed{}, err
	}
	commit, err := w.Commit(ctx, wt.Main)
	return reviewed{wt: wt, commit: commit, base: base, from: from}, err
}

// againstBase merges r's work with its base branch, when that moved since
// r's branch left it (a commit or a tag never moves).
func againstBase(ctx context.Context, r reviewed) (BaseConflict, bool) {
	if !r.base.Branch || r.base.Commit == r.from {
		return BaseConflict{}, false
	}
	b := BaseConflict{Member: r.wt.Member, Base: r.base.Name}
	var err error
	if b.Moved, err = worktrees.CountCommits(ctx, r.wt.Main, r.from, r.base.Commit); err == nil {
		b.Merge, err = worktrees.TryMerge(ctx, r.wt.Main, r.commit, r.base.Commit)
	}
	if err != nil {
		b.Merge, b.Error = noMerge, fmt.Sprintf("against %s: %v", r.base.Name, err)
	}
	return b, true
}

// noMerge is the merge of a comparison that failed: empty lists, as JSON
// has them elsewhere.
var noMerge = worktrees.Merge{Both: []string{}, Conflicts: []worktrees.Conflict{}}
