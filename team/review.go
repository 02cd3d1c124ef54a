package team

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// DiffMode is what Diff reads of each member's changes.
type DiffMode int

const (
	DiffPatch DiffMode = iota // the files, and the patch
	DiffStat                  // the files with their lines added and deleted
	DiffNames                 // the files (read as for DiffStat)
)

// Diff reads what the members called names (all when none) changed, without
// touching their index or files. A member without a worktree is shown in the
// checkout it works in, once for all who share it (or in no repository:
// nothing to show, said).
func (t *Team) Diff(ctx context.Context, names []string, mode DiffMode) (*Changes, error) {
	st, err := state.Load(t.Name)
	if err != nil {
		return nil, err
	}
	remote, rest := remoteNames(st, names)
	var targets []*reviewTarget
	if len(names) == 0 || len(rest) > 0 {
		if targets, err = reviewTargets(ctx, st, rest); err != nil {
			return nil, err
		}
	}
	ch := &Changes{Team: t.Name, Work: make([]WorkChanges, len(targets))}
	// The worktrees of each repository at once (one walk of its history,
	// several read at a time); the checkouts members share one by one.
	byRepo := map[string][]int{}
	var repos []string
	for i, tg := range targets {
		if tg.wt == nil {
			ch.Work[i] = tg.changes(ctx, mode)
			continue
		}
		main := tg.wt.Main
		if filepath.IsAbs(main) {
			main = filepath.Clean(main)
		}
		if _, ok := byRepo[main]; !ok {
			repos = append(repos, main)
		}
		byRepo[main] = append(byRepo[main], i)
	}
	for _, main := range repos {
		var members []worktrees.Member
		for _, i := range byRepo[main] {
			w := targets[i].wt
			members = append(members, worktrees.Member{Name: w.Member, Path: w.Path, Branch: w.Branch, Base: w.Base})
		}
		for k, d := range worktrees.DiffWorktrees(ctx, main, members, mode == DiffPatch, worktrees.Jobs()) {
			i := byRepo[main][k]
			ch.Work[i] = targets[i].worktreeChanges(ctx, d)
		}
	}
	for _, rw := range remote {
		ch.Work = append(ch.Work, remoteChanges(ctx, st, rw, mode))
	}
	for _, wc := range ch.Work {
		ch.Files += len(wc.Files)
		ch.Added += wc.Added
		ch.Deleted += wc.Deleted
	}
	return ch, nil
}

// worktreeChanges is the work of a member's worktree, as DiffWorktrees read it.
func (tg *reviewTarget) worktreeChanges(ctx context.Context, d worktrees.WorkDiff) WorkChanges {
	wc := WorkChanges{Members: tg.members, Files: []worktrees.FileChange{}, Member: tg.wt.Member, Worktree: true, Path: tg.wt.Path, Branch: tg.wt.Branch}
	if d.Err != nil {
		wc.Error = d.Err.Error()
		return wc
	}
	w := d.Work
	wc.Base, wc.Commits, wc.Files, wc.Patch = d.Base, d.Commits, d.Files, d.Patch
	wc.Notes = worktreeNotes(ctx, tg.wt, w, d.Base)
	wc.Path, wc.Branch, wc.Uncommitted, wc.LeftOut = w.Path, w.Branch, w.Files, w.LeftOut
	for _, f := range wc.Files {
		wc.Added += f.Added
		wc.Deleted += f.Deleted
	}
	return wc
}

// reviewTarget is a worktree of a member, or a checkout members share.
type reviewTarget struct {
	wt      *state.Worktree // nil for a shared checkout
	top     string          // the checkout's top: the worktree, or the shared checkout
	dir     string          // a shared checkout: the first member's folder in it
	members []string
	err     error // why a shared checkout could not be found
}

// reviewTargets are the team's worktrees and the checkouts of its members
// without one, each once; those of names only, when given.
func reviewTargets(ctx context.Context, st *state.Team, names []string) ([]*reviewTarget, error) {
	known := map[string]bool{}
	for _, m := range st.Members {
		known[m.Name] = true
	}
	for _, w := range st.Worktrees {
		known[w.Member] = true
	}
	for _, n := range names {
		if !known[n] {
			return nil, noMember(st, n)
		}
	}
	var out []*reviewTarget
	hasWorktree := map[string]bool{}
	for i := range st.Worktrees {
		w := &st.Worktrees[i]
		hasWorktree[w.Member] = true
		out = append(out, &reviewTarget{wt: w, top: w.Path, members: []string{w.Member}})
	}
	// The others, by the checkout their folder is in: a worktree's (a
	// teammate working in another's), else one they share.
	for _, m := range st.Members {
		if hasWorktree[m.Name] || m.Remote() {
			continue // a member on another host: its work is fetched (remotework.go), never read here
		}
		top, err := checkoutTop(ctx, m.Cwd)
		i := slices.IndexFunc(out, func(tg *reviewTarget) bool {
			if err != nil {
				return tg.err != nil && tg.dir == m.Cwd
			}
			return tg.err == nil && samePath(tg.top, top)
		})
		if i >= 0 {
			out[i].members = append(out[i].members, m.Name)
			continue
		}
		out = append(out, &reviewTarget{top: top, dir: m.Cwd, members: []string{m.Name}, err: err})
	}
	if len(names) == 0 {
		return out, nil
	}
	var picked []*reviewTarget
	for _, tg := range out {
		if slices.ContainsFunc(tg.members, func(m string) bool { return slices.Contains(names, m) }) {
			picked = append(picked, tg)
		}
	}
	return picked, nil
}

// checkoutTop is the top of the checkout dir is in.
func checkoutTop(ctx context.Context, dir string) (string, error) {
	if dir == "" {
		return "", errors.New("no folder recorded")
	}
	r, err := worktrees.FindRepo(ctx, dir)
	if err != nil {
		return "", err
	}
	return r.Top, nil
}

func samePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

// changes reads the work of a checkout members share.
func (tg *reviewTarget) changes(ctx context.Context, mode DiffMode) WorkChanges {
	wc := WorkChanges{Members: tg.members, Files: []worktrees.FileChange{}}
	wc.Path = tg.top
	if tg.err != nil {
		wc.Path = tg.dir
	}
	if err := tg.readChanges(ctx, mode, &wc); err != nil {
		wc.Error = err.Error()
	}
	for _, f := range wc.Files {
		wc.Added += f.Added
		wc.Deleted += f.Deleted
	}
	return wc
}

// readChanges reads the uncommitted changes of a checkout members share.
func (tg *reviewTarget) readChanges(ctx context.Context, mode DiffMode, wc *WorkChanges) error {
	if tg.err != nil {
		// A member outside git (a process in /tmp) has no changes to show.
		wc.Notes = append(wc.Notes, fmt.Sprintf("%s is in no git repository: nothing to show", tg.dir))
		return nil
	}
	w, files, patch, err := worktrees.DiffCheckout(ctx, tg.top, mode == DiffPatch)
	if err != nil {
		return err
	}
	whose := "its"
	if len(tg.members) > 1 {
		whose = "their"
	}
	wc.Notes = append(wc.Notes, fmt.Sprintf("no worktree of %s own: the uncommitted changes of the checkout %s", whose, w.Path))
	wc.Path, wc.Branch, wc.Uncommitted, wc.LeftOut = w.Path, w.Branch, w.Files, w.LeftOut
	wc.Files, wc.Patch = files, patch
	return nil
}

// worktreeNotes says what a person should know of a worktree's work before
// reading it: the folder gone, HEAD not on the member's branch, git stopped
// half-way, a base that is not the one recorded.
func worktreeNotes(ctx context.Context, wt *state.Worktree, w worktrees.Work, base *worktrees.Base) []string {
	var notes []string
	switch {
	case w.Gone:
		notes = append(notes, fmt.Sprintf("its worktree %s is gone: the commits of its branch %s only", wt.Path, wt.Branch))
	case w.Branch == "":
		gone := ""
		if !worktrees.BranchExists(ctx, wt.Main, wt.Branch) {
			gone = ", which is gone"
		}
		notes = append(notes, fmt.Sprintf("HEAD is detached at %.10s, not on its branch %s%s", w.Head, wt.Branch, gone))
	case w.Branch != wt.Branch:
		notes = append(notes, fmt.Sprintf("on branch %s, not on its own %s", w.Branch, wt.Branch))
	}
	if w.Busy != "" {
		notes = append(notes, fmt.Sprintf("a %s is stopped half-way there (git status in it says how to go on)", w.Busy))
	}
	if base.Guessed != "" {
		notes = append(notes, "base "+base.Name+": "+base.Guessed)
	}
	return notes
}
