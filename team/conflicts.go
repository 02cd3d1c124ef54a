package team

import (
	"context"
	"fmt"
	"path/filepath"

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

// Conflicts tells what merging the members' work would do, with git
// merge-tree on commits of each worktree's whole work (made through a
// temporary index: nothing of the members' changes), the worktrees of each
// repository compared at once (worktrees.CompareWorktrees). A git older
// than 2.38 is a *worktrees.OldGitError.
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
	byRepo := map[string][]worktrees.Member{}
	var repos []string
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
		w := tg.wt
		if !filepath.IsAbs(w.Main) {
			c.Unread = append(c.Unread, Skipped{w.Member, fmt.Sprintf("the worktree recorded for %s (%q of %q) is not at an absolute path", w.Member, w.Path, w.Main)})
			continue
		}
		main := filepath.Clean(w.Main)
		if _, ok := byRepo[main]; !ok {
			repos = append(repos, main)
		}
		byRepo[main] = append(byRepo[main], worktrees.Member{Name: w.Member, Path: w.Path, Branch: w.Branch, Base: w.Base})
	}
	for _, main := range repos {
		members := byRepo[main]
		cmp, err := worktrees.CompareWorktrees(ctx, main, members, worktrees.Jobs())
		if err != nil {
			for _, m := range members {
				c.Unread = append(c.Unread, Skipped{m.Name, err.Error()})
			}
			continue
		}
		for i, err := range cmp.Errs {
			if err != nil {
				c.Unread = append(c.Unread, Skipped{members[i].Name, err.Error()})
			}
		}
		for i, landed := range cmp.Landed {
			if landed && cmp.Bases[i] != nil {
				// Merged (or nothing yet): its changes meet the others'
				// when theirs land, in their pair with the base.
				c.Skipped = append(c.Skipped, Skipped{members[i].Name, "its work is all in " + cmp.Bases[i].Name + " already"})
			}
		}
		for _, p := range cmp.Pairs {
			pc := PairConflict{Members: [2]string{members[p.Pair[0]].Name, members[p.Pair[1]].Name}, Merge: p.Merge}
			if p.Err != nil {
				pc.Merge, pc.Error = noMerge, p.Err.Error()
			}
			c.Pairs = append(c.Pairs, pc)
		}
		for _, b := range cmp.AgainstBase {
			bc := BaseConflict{Member: members[b.Member].Name, Base: b.Base.Name, Moved: b.Moved, Merge: b.Merge}
			if b.Err != nil {
				bc.Merge, bc.Error = noMerge, fmt.Sprintf("against %s: %v", b.Base.Name, b.Err)
			}
			c.Bases = append(c.Bases, bc)
		}
	}
	remoteConflicts(ctx, st, c)
	return c, nil
}

// noMerge is the merge of a comparison that failed: empty lists, as JSON
// has them elsewhere.
var noMerge = worktrees.Merge{Both: []string{}, Conflicts: []worktrees.Conflict{}}
