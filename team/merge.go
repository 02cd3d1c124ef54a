package team

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// MergeOptions say how Merge lands the members' work.
type MergeOptions struct {
	Into    string // the branch to land in; "" for each member's recorded base
	Squash  bool
	Message string // "" for one that names the member's branch
	// WIP commits a member's uncommitted work on its branch first, instead
	// of refusing it.
	WIP bool
}

// Merge lands the work of the members called names, in that order, each
// into its base (the branch its worktree was made from, as teamctl recorded
// it where members do not write: mergeTarget) or o.Into, through worktrees.Land: no checkout, the branch
// moved by compare-and-swap only. It stops at the first member it refuses
// (no worktree of its own, uncommitted work without WIP, git stopped
// half-way in its worktree, a conflict, a target checkout with changes, a
// target that moved meanwhile): what landed before stays landed, nothing of
// the refused member is half-done.
func (t *Team) Merge(ctx context.Context, names []string, o MergeOptions) (*MergeResult, error) {
	st, err := state.Load(t.Name)
	if err != nil {
		return nil, err
	}
	res := &MergeResult{Team: t.Name, Landed: []Landed{}}
	for i, name := range names {
		var l Landed
		if rw, ok := st.RemoteWorktree(name); ok {
			l, err = landRemote(ctx, st, rw, o)
		} else {
			l, err = landMember(ctx, st, name, o)
		}
		if err != nil {
			res.Refused = refusal(name, err, names[i+1:])
			break
		}
		res.Landed = append(res.Landed, l)
		t.recordLanded(l, "teamctl merge")
	}
	return res, nil
}

// recordLanded records in the team's events that l landed, as by whom and
// from where (By): a merge from top or the page is in the team's history as
// one from the command line is. Nothing landed (already there) is not
// recorded. An event that cannot be written leaves the landing as it is.
func (t *Team) recordLanded(l Landed, cmd string) {
	if l.UpToDate || l.New == "" || l.New == l.Old {
		return
	}
	ev, err := state.OpenEventLog(t.Name)
	if err != nil {
		return
	}
	defer ev.Close()
	how := "merged"
	if l.Squash {
		how = "squashed"
	}
	ev.Append(t.by.mark(state.Event{Kind: state.EventMerged, Member: l.Member,
		Detail: fmt.Sprintf("%s %s into %s (%s..%s) %s", how, l.Branch, l.Into, shortHash(l.Old), shortHash(l.New), t.by.detail(cmd))}))
}

func shortHash(h string) string { return h[:min(len(h), 10)] }

// refusal is err said for a person, with a conflict's files.
func refusal(member string, err error, notTried []string) *Refusal {
	r := &Refusal{Member: member, Why: err.Error(), NotTried: notTried}
	var ce *worktrees.ConflictError
	if errors.As(err, &ce) {
		r.Conflicts = ce.Conflicts
	}
	return r
}

// worktreeOf is the worktree state.json records for member, its paths
// absolute and its branch a name git cannot misread.
func worktreeOf(st *state.Team, member string) (*state.Worktree, error) {
	for i := range st.Worktrees {
		wt := &st.Worktrees[i]
		if wt.Member != member {
			continue
		}
		if !filepath.IsAbs(wt.Main) || !filepath.IsAbs(wt.Path) {
			return nil, fmt.Errorf("the worktree recorded for %s (%q of %q) is not at an absolute path", member, wt.Path, wt.Main)
		}
		if err := worktrees.CheckBranch(wt.Branch); err != nil {
			return nil, fmt.Errorf("the branch recorded for %s: %w", member, err)
		}
		return wt, nil
	}
	if _, ok := st.Member(member); !ok {
		return nil, noMember(st, member)
	}
	return nil, fmt.Errorf("%s has no worktree of its own: its work is in the checkout it works in, nothing to merge", member)
}

// landMember lands one member's work (see Merge).
func landMember(ctx context.Context, st *state.Team, member string, o MergeOptions) (Landed, error) {
	l := Landed{Member: member}
	wt, w, into, err := landTarget(ctx, st, member, o)
	if err != nil {
		return l, err
	}
	spec := worktrees.LandSpec{Main: wt.Main, Branch: wt.Branch, Into: into, Squash: o.Squash, Message: o.Message}
	if o.WIP && w.Files > 0 {
		msg := fmt.Sprintf("WIP: %s's uncommitted work, committed by teamctl merge --wip to land it\n\n%d file(s) of its worktree %s that were not committed.\n", member, w.Files, w.Path)
		if l.WIP, err = worktrees.CommitWork(ctx, wt.Main, w, msg); err != nil {
			return l, err
		}
		l.LeftOut = w.LeftOut
		// The member's branch takes the commit only once the merge is made.
		spec.Source = l.WIP
		spec.Ready = func(ctx context.Context) error {
			return worktrees.MoveBranch(ctx, wt.Main, w, l.WIP, "teamctl merge --wip")
		}
	}
	l.Landed, err = worktrees.Land(ctx, spec)
	return l, err
}

// landTarget is what landMember lands of member and where, once it found
// nothing to refuse: its worktree record, its work as read now, the branch
// it lands in. Read alone, it is what finish's plan says it would do.
func landTarget(ctx context.Context, st *state.Team, member string, o MergeOptions) (*state.Worktree, worktrees.Work, string, error) {
	wt, err := worktreeOf(st, member)
	if err != nil {
		return nil, worktrees.Work{}, "", err
	}
	w, err := worktrees.ReadWork(ctx, wt.Main, wt.Path, wt.Branch)
	if err != nil {
		return nil, w, "", err
	}
	switch {
	case w.Busy != "":
		return nil, w, "", fmt.Errorf("a %s is stopped half-way in %s's worktree %s: finish or abort it there first (git status there says how)", w.Busy, member, w.Path)
	case !w.Gone && w.Branch != wt.Branch:
		on := "a detached HEAD"
		if w.Branch != "" {
			on = "branch " + w.Branch
		}
		return nil, w, "", fmt.Errorf("%s's worktree %s is on %s, not on its branch %s: check its branch out there first", member, w.Path, on, wt.Branch)
	case w.Files+len(w.LeftOut) > 0 && !o.WIP:
		return nil, w, "", fmt.Errorf("%s has %d uncommitted file(s) in %s: commit them there, or --wip commits them on its branch first", member, w.Files+len(w.LeftOut), w.Path)
	}
	into := o.Into
	if into == "" {
		recorded, err := mergeTarget(ctx, st, wt)
		if err != nil {
			return nil, w, "", err
		}
		base, err := worktrees.FindBase(ctx, wt.Main, recorded)
		switch {
		case err != nil:
			return nil, w, "", err
		case base.Guessed != "" || !base.Branch:
			return nil, w, "", fmt.Errorf("%s's worktree was made from no branch teamctl knows (recorded: %q): say where to land it with --into BRANCH", member, recorded)
		}
		into = base.Name
	}
	return wt, w, into, nil
}

// mergeTarget is the base a member's work lands on without --into, taken
// from what teamctl recorded where members do not write: the branch's own
// git config (branch.<name>.teamctl-base, written when up made the branch),
// else the worktree base the team's layout names (the very file up read).
// state.json's base, which any member can edit, must say the same: on a
// mismatch nothing lands, and both are said.
func mergeTarget(ctx context.Context, st *state.Team, wt *state.Worktree) (string, error) {
	rec, err := worktrees.RecordOf(ctx, wt.Main, wt.Branch)
	if err != nil {
		return "", fmt.Errorf("what teamctl recorded of %s's branch %s: %w", wt.Member, wt.Branch, err)
	}
	base, from := rec.Base, fmt.Sprintf("the branch's git config (branch.%s.teamctl-base)", wt.Branch)
	if base == "" {
		if l, err := ResumeLayout(st.Team); err == nil {
			for _, m := range l.All() {
				if m.Name == wt.Member && m.Worktree != nil && m.Worktree.Base != "" {
					base, from = m.Worktree.Base, "the layout "+l.Path
				}
			}
		}
	}
	switch {
	case base == "":
		return "", fmt.Errorf("teamctl recorded no base for %s's branch %s where members do not write (its git config, the layout); state.json's %q is not taken alone: say where to land it with --into BRANCH", wt.Member, wt.Branch, wt.Base)
	case wt.Base != base:
		return "", fmt.Errorf("state.json records base %q for %s's worktree, but %s says %q: was state.json edited? nothing landed; say where to land it with --into BRANCH", wt.Base, wt.Member, from, base)
	}
	return base, nil
}
