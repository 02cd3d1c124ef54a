package worktrees

import (
	"context"
	"fmt"
	"path/filepath"
)

// Member is a member's worktree as its team records it — its folder, the
// branch it was made on, the base it was made from — which anyone can edit:
// each is checked before git sees it.
type Member struct {
	Name, Path, Branch, Base string
}

// Comparison is what merging members' work would do: each pair of them, and
// each against its base branch where that moved on since the member left it.
type Comparison struct {
	Works []Work  // each member's work, as ReadWork reads it
	Errs  []error // why Works[i] could not be read (it is then in no pair)
	Bases []*Base // each member's base (nil when its work was not read)
	// Pairs are the members' pairs (Pair indexes members).
	Pairs []Compared
	// AgainstBase are the members whose base branch moved on.
	AgainstBase []BaseCompared
	// Landed are the members whose work is all in their base already
	// (merged, or none yet): in no pair, and not against their base.
	Landed []bool
}

// BaseCompared is what merging a member's work into its base branch, as that
// is now, would do.
type BaseCompared struct {
	Member int // index into members
	Base   Base
	Moved  int // the base's commits since the member's branch left it
	Merge  Merge
	Err    error
}

// CompareWorktrees reads the work of members' worktrees, all of the
// repository whose main checkout is main, and tells what merging each pair
// would do and what merging each into its base would do where that moved:
// what `teamctl conflicts` shows. Worktrees are read jobs at a time, and
// the merges found as CompareAll finds them.
func CompareWorktrees(ctx context.Context, main string, members []Member, jobs int) (*Comparison, error) {
	if !filepath.IsAbs(main) {
		return nil, fmt.Errorf("the main checkout %q is not at an absolute path", main)
	}
	c := &Comparison{Errs: make([]error, len(members)), Bases: make([]*Base, len(members))}
	specs := make([]WorkSpec, len(members))
	for i, m := range members {
		specs[i] = WorkSpec{Path: m.Path, Branch: m.Branch}
		if m.Path != "" && !filepath.IsAbs(m.Path) {
			specs[i] = WorkSpec{} // read as nothing: refused below
		}
	}
	v := look(ctx, main, members, specs, true)
	c.Works, c.Errs = readWorks(ctx, main, specs, jobs, v.list, v.listErr, true)
	v.wait()
	found, baseErrs, walked := v.bases, v.baseErrs, v.walked
	var sides []Side
	sideOf := make([]int, len(members)) // member: its side, -1 when unread
	for i, m := range members {
		sideOf[i] = -1
		if m.Path != "" && !filepath.IsAbs(m.Path) {
			c.Errs[i] = fmt.Errorf("the worktree recorded for %s (%q) is not at an absolute path", m.Name, m.Path)
		}
		if c.Errs[i] != nil {
			continue
		}
		if err := baseErrs[m.Base]; err != nil {
			c.Errs[i] = err
			continue
		}
		c.Bases[i] = found[m.Base]
		sideOf[i] = len(sides)
		side := WorkSide(m.Name, main, c.Works[i])
		if b := c.Bases[i]; b != nil {
			side.BaseHead = b.Commit // its work all there: in no pair (Compared.Landed)
		}
		sides = append(sides, side)
	}
	memberSides := len(sides)
	pairs := Pairs(sides)
	// The bases that are branches (a commit or a tag never moves): a side
	// each, paired with each member on it.
	baseSide := map[string]int{}
	type basePair struct{ member, pair int }
	var onBase []basePair
	for i := range members {
		b := c.Bases[i]
		if sideOf[i] < 0 || !b.Branch {
			continue
		}
		s, ok := baseSide[b.Commit]
		if !ok {
			s = len(sides)
			baseSide[b.Commit] = s
			sides = append(sides, Side{Name: b.Name, Main: main, Head: b.Commit})
		}
		onBase = append(onBase, basePair{i, len(pairs)})
		pairs = append(pairs, [2]int{sideOf[i], s})
	}
	got, err := compareAll(ctx, sides, pairs, jobs, walked)
	if err != nil {
		return nil, err
	}
	memberOf := make([]int, memberSides)
	for i, s := range sideOf {
		if s >= 0 {
			memberOf[s] = i
		}
	}
	c.Landed = make([]bool, len(members))
	for _, g := range got {
		for j, s := range g.Pair {
			if g.Landed[j] && s < memberSides {
				c.Landed[memberOf[s]] = true
			}
		}
	}
	for _, g := range got[:len(got)-len(onBase)] {
		g.Pair = [2]int{memberOf[g.Pair[0]], memberOf[g.Pair[1]]}
		if c.Landed[g.Pair[0]] || c.Landed[g.Pair[1]] {
			continue
		}
		c.Pairs = append(c.Pairs, g)
	}
	for _, bp := range onBase {
		g := got[bp.pair]
		if c.Landed[bp.member] {
			continue
		}
		w := c.Works[bp.member]
		moved := g.Behind
		if moved < 0 {
			// The walk could not tell: ask git, from where the branch left the base.
			from, err := MergeBase(ctx, main, c.Bases[bp.member].Commit, w.Head)
			if err == nil {
				moved, err = CountCommits(ctx, main, from, c.Bases[bp.member].Commit)
			}
			if err != nil {
				c.AgainstBase = append(c.AgainstBase, BaseCompared{Member: bp.member, Base: *c.Bases[bp.member], Merge: g.Merge, Err: err})
				continue
			}
		}
		if moved == 0 {
			continue
		}
		c.AgainstBase = append(c.AgainstBase, BaseCompared{Member: bp.member, Base: *c.Bases[bp.member], Moved: moved, Merge: g.Merge, Err: g.Err})
	}
	return c, nil
}

// view is what is read of a repository once for all its members' worktrees:
// git's list of its worktrees, the members' bases, and a walk of the history
// from their heads and bases (made while the worktrees are read: wait).
type view struct {
	list     []Entry
	listErr  error
	bases    map[string]*Base // by the name recorded
	baseErrs map[string]error
	walked   *history // nil when the walk failed (met again, and said, later)
	done     chan struct{}
}

func (v *view) wait() { <-v.done }

// look lists main's worktrees, then finds the members' bases and walks the
// history in the background, and with changed diffs the members' heads
// against the walk's base (history.changed).
func look(ctx context.Context, main string, members []Member, specs []WorkSpec, changed bool) *view {
	v := &view{bases: map[string]*Base{}, baseErrs: map[string]error{}, done: make(chan struct{})}
	v.list, v.listErr = listMain(ctx, main)
	go func() {
		defer close(v.done)
		tips := []string{}
		for _, m := range members {
			if _, ok := v.bases[m.Base]; ok || v.baseErrs[m.Base] != nil {
				continue
			}
			b, err := FindBase(ctx, main, m.Base)
			if err != nil {
				v.baseErrs[m.Base] = err
				continue
			}
			v.bases[m.Base] = &b
			tips = append(tips, b.Commit)
		}
		for _, s := range specs {
			if v.listErr != nil || s.Path == "" {
				continue
			}
			if e, err := linkedIn(v.list, main, s.Path); err == nil {
				tips = append(tips, e.Head)
			}
		}
		v.walked, _ = walk(ctx, main, tips)
		if changed && v.walked != nil {
			// What each member's head (and each base branch) changed since
			// the walk's base, while the folders are read: compareAll then
			// needs no diff of their work after (compose). Without it (an
			// error), it diffs as before.
			v.walked.changed, _ = headChanges(ctx, main, v.walked, tips)
		}
	}()
	return v
}
