package team

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// The work of members on other hosts (docs/hosts.md), reviewed here: each
// is fetched with git over the host's ssh connection into this machine's
// repository (refs/teamctl/remote/<host>/…): its branch, its base there,
// and its whole work, uncommitted too, as a commit the host made of it
// (worktrees.SnapshotRef). Nothing of its files is copied.

// localRepo is this machine's repository of the team: the one its lead (or
// first member here) works in (state.Team.LocalCwd).
func localRepo(ctx context.Context, st *state.Team) (string, error) {
	cwd := st.LocalCwd()
	if cwd == "" {
		return "", fmt.Errorf("team %s has no member on this machine, whose repository its members' work would come to", st.Team)
	}
	repo, err := worktrees.FindRepo(ctx, cwd)
	if err != nil {
		return "", fmt.Errorf("the team's repository here (%s): %w", cwd, err)
	}
	return repo.Main, nil
}

// fetchRemoteWork fetches the work of member rw's worktree on its host
// (worktrees.RemoteRepo.FetchWork) into this machine's repository, main.
func fetchRemoteWork(ctx context.Context, st *state.Team, rw *state.RemoteWorktree) (w worktrees.RemoteWork, main string, err error) {
	h, ok := st.Host(rw.Host)
	if !ok {
		return w, "", fmt.Errorf("%s's host %s is not in the team's state", rw.Member, rw.Host)
	}
	if main, err = localRepo(ctx, st); err != nil {
		return w, "", err
	}
	sh, err := hostOf(h.SSH)
	if err != nil {
		return w, "", err
	}
	repo := worktrees.RemoteRepo{Host: sh, Name: h.Name, Dir: rw.Main}
	w, err = repo.FetchWork(ctx, main, st.Team, rw.Member, rw.Path, rw.Branch, rw.Base)
	return w, main, err
}

// remoteChanges is what member rw's work on its host changed since its
// base there: its commits and its uncommitted work, as diff shows a
// worktree's here.
func remoteChanges(ctx context.Context, st *state.Team, rw *state.RemoteWorktree, mode DiffMode) WorkChanges {
	wc := WorkChanges{Member: rw.Member, Members: []string{rw.Member}, Worktree: true, Path: rw.Host + ":" + rw.Path,
		Branch: rw.Branch, Files: []worktrees.FileChange{}}
	w, main, err := fetchRemoteWork(ctx, st, rw)
	if err != nil {
		wc.Error = err.Error()
		return wc
	}
	from := w.Branch
	if w.Base != "" {
		if mb, err := worktrees.MergeBase(ctx, main, w.Base, w.Branch); err == nil {
			from = mb
		}
		wc.Base = &worktrees.Base{Name: rw.Base, Commit: w.Base, Branch: true}
		if n, err := worktrees.CountCommits(ctx, main, from, w.Branch); err == nil {
			wc.Commits = n
		}
	}
	if wc.Files, err = worktrees.DiffFiles(ctx, main, from, w.Work); err != nil {
		wc.Error = err.Error()
		return wc
	}
	if unc, err := worktrees.DiffFiles(ctx, main, w.Branch, w.Work); err == nil {
		wc.Uncommitted = len(unc)
	}
	if mode == DiffPatch {
		if wc.Patch, err = worktrees.Patch(ctx, main, from, w.Work); err != nil {
			wc.Error = err.Error()
		}
	}
	for _, f := range wc.Files {
		wc.Added += f.Added
		wc.Deleted += f.Deleted
	}
	wc.Notes = append(wc.Notes, fmt.Sprintf("on host %s; fetched into %s", rw.Host, worktrees.RemoteRef(rw.Host, "refs/heads/"+rw.Branch)))
	return wc
}

// remoteNames splits names (all when none) into the members with a
// worktree on another host and the rest; with no names given, rest is nil
// too (everyone here).
func remoteNames(st *state.Team, names []string) (remote []*state.RemoteWorktree, rest []string) {
	for i := range st.RemoteWorktrees {
		rw := &st.RemoteWorktrees[i]
		if len(names) == 0 || slices.Contains(names, rw.Member) {
			remote = append(remote, rw)
		}
	}
	for _, n := range names {
		if _, ok := st.RemoteWorktree(n); !ok {
			rest = append(rest, n)
		}
	}
	return remote, rest
}

// landRemote lands member rw's committed work on its host into into (its
// base here when ""), as landMember does a worktree's here: fetched, then
// worktrees.Land with the fetched head as the source. Uncommitted work
// there is refused.
func landRemote(ctx context.Context, st *state.Team, rw *state.RemoteWorktree, o MergeOptions) (Landed, error) {
	l := Landed{Member: rw.Member}
	w, main, err := fetchRemoteWork(ctx, st, rw)
	if err != nil {
		return l, err
	}
	if unc, err := worktrees.DiffFiles(ctx, main, w.Branch, w.Work); err != nil {
		return l, err
	} else if len(unc) > 0 {
		return l, fmt.Errorf("%s has %d uncommitted file(s) in %s on %s: commit them there first", rw.Member, len(unc), rw.Path, rw.Host)
	}
	into := o.Into
	if into == "" {
		into = rw.Base
	}
	if into == "" {
		return l, fmt.Errorf("%s's worktree on %s was made from no branch: say where to land it with --into BRANCH", rw.Member, rw.Host)
	}
	l.Landed, err = worktrees.Land(ctx, worktrees.LandSpec{Main: main, Branch: rw.Branch, Into: into, Source: w.Branch,
		Squash: o.Squash, Message: o.Message})
	return l, err
}

// remoteConflicts adds to c what merging the work of the members on other
// hosts would do: with each other, with the worktrees here of the same
// repository, and each with its base there where that moved (git
// merge-tree on commits of each one's whole work: worktrees.TryMerge).
func remoteConflicts(ctx context.Context, st *state.Team, c *Conflicts) {
	if len(st.RemoteWorktrees) == 0 {
		return
	}
	type side struct{ name, commit string }
	var remote []side
	main := ""
	for i := range st.RemoteWorktrees {
		rw := &st.RemoteWorktrees[i]
		w, m, err := fetchRemoteWork(ctx, st, rw)
		if err != nil {
			c.Unread = append(c.Unread, Skipped{rw.Member, err.Error()})
			continue
		}
		main = m
		remote = append(remote, side{rw.Member, w.Work})
		if w.Base == "" {
			continue
		}
		from, err := worktrees.MergeBase(ctx, main, w.Base, w.Branch)
		moved := 0
		if err == nil {
			moved, err = worktrees.CountCommits(ctx, main, from, w.Base)
		}
		if err == nil && moved == 0 {
			continue
		}
		bc := BaseConflict{Member: rw.Member, Base: rw.Base, Moved: moved}
		if err == nil {
			bc.Merge, err = worktrees.TryMerge(ctx, main, w.Work, w.Base)
		}
		if err != nil {
			bc.Merge, bc.Error = noMerge, fmt.Sprintf("against %s on %s: %v", rw.Base, rw.Host, err)
		}
		c.Bases = append(c.Bases, bc)
	}
	if len(remote) == 0 {
		return
	}
	// The worktrees here of the same repository.
	var local []side
	for _, wt := range st.Worktrees {
		if !filepath.IsAbs(wt.Main) || filepath.Clean(wt.Main) != filepath.Clean(main) {
			continue
		}
		w, err := worktrees.ReadWork(ctx, wt.Main, wt.Path, wt.Branch)
		var commit string
		if err == nil {
			commit, err = w.Commit(ctx, wt.Main)
		}
		if err != nil {
			continue // the comparisons here have said why
		}
		local = append(local, side{wt.Member, commit})
	}
	pair := func(a, b side) {
		pc := PairConflict{Members: [2]string{a.name, b.name}}
		m, err := worktrees.TryMerge(ctx, main, a.commit, b.commit)
		pc.Merge = m
		if err != nil {
			pc.Merge, pc.Error = noMerge, err.Error()
		}
		c.Pairs = append(c.Pairs, pc)
	}
	for i, a := range remote {
		for _, b := range remote[i+1:] {
			pair(a, b)
		}
		for _, b := range local {
			pair(a, b)
		}
	}
}

// finishRemote finishes member rw on its host as finishMember does here:
// it must not be running; its committed work lands here (landRemote, which
// refuses uncommitted work there: nothing is lost with the worktree); then
// its worktree there goes, and the branch teamctl made for it (its work is
// here now), and its record leaves state.json.
func (t *Team) finishRemote(ctx context.Context, st *state.Team, rw *state.RemoteWorktree, o MergeOptions) (Finished, error) {
	f := Finished{}
	if err := t.checkDown(ctx, st, rw.Member); err != nil {
		return f, err
	}
	var err error
	if f.Landed, err = landRemote(ctx, st, rw, o); err != nil {
		return f, err
	}
	t.recordLanded(f.Landed, "teamctl finish")
	landed := fmt.Sprintf("%s's work landed on %s (%.10s), but", rw.Member, f.Into, f.New)
	h, _ := st.Host(rw.Host)
	sh, err := hostOf(h.SSH)
	if err != nil {
		return f, fmt.Errorf("%s %w", landed, err)
	}
	repo := worktrees.RemoteRepo{Host: sh, Name: rw.Host, Dir: rw.Main}
	if err := repo.RemoveWorktree(ctx, rw.Path, false); err != nil {
		return f, fmt.Errorf("%s its worktree on %s was not removed: %w", landed, rw.Host, err)
	}
	f.Worktree = rw.Host + ":" + rw.Path
	if rw.CreatedBranch {
		if err := repo.DeleteBranch(ctx, rw.Branch); err != nil {
			f.Kept = fmt.Sprintf("branch %s on %s not deleted: %v", rw.Branch, rw.Host, err)
		} else {
			f.Branch = rw.Host + ":" + rw.Branch
		}
	}
	unlock, err := state.Lock(ctx, t.Name)
	if err != nil {
		return f, fmt.Errorf("%s its worktree is gone and state.json still records it: %w", landed, err)
	}
	defer unlock()
	now, err := state.Load(t.Name)
	if err == nil {
		now.RemoteWorktrees = slices.DeleteFunc(now.RemoteWorktrees, func(w state.RemoteWorktree) bool { return w.Member == rw.Member })
		err = state.Save(now)
	}
	if err != nil {
		return f, fmt.Errorf("%s its worktree is gone and state.json still records it: %w", landed, err)
	}
	return f, nil
}
