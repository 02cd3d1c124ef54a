package team

import (
	"context"
	"fmt"
	"slices"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// The work of members on other hosts (docs/hosts.md), reviewed here: each
// is fetched with git over the host's ssh connection into this machine's
// repository (refs/teamctl/remote/<host>/…): its branch, its base there,
// and its whole work, uncommitted too, as a commit the host made of it
// (worktrees.SnapshotRef). Nothing of its files is copied.

// remoteWork is what was fetched of a member's work on its host.
type remoteWork struct {
	rw     *state.RemoteWorktree
	main   string // this machine's repository
	work   string // the commit of its whole work, uncommitted included
	branch string // its branch's head
	base   string // its base's head there ("" when its base is no branch there)
}

// localRepo is this machine's repository of the team: the one its lead (or
// first member here) works in.
func localRepo(ctx context.Context, st *state.Team) (string, error) {
	for _, m := range st.Members {
		if m.Remote() {
			continue
		}
		repo, err := worktrees.FindRepo(ctx, m.Cwd)
		if err != nil {
			return "", fmt.Errorf("the team's repository here (where %s works): %w", m.Name, err)
		}
		return repo.Main, nil
	}
	return "", fmt.Errorf("team %s has no member on this machine, whose repository its members' work would come to", st.Team)
}

// fetchRemoteWork fetches the work of member rw's worktree on its host.
func fetchRemoteWork(ctx context.Context, st *state.Team, rw *state.RemoteWorktree) (*remoteWork, error) {
	if err := worktrees.CheckBranch(rw.Branch); err != nil {
		return nil, fmt.Errorf("the branch recorded for %s: %w", rw.Member, err)
	}
	h, ok := st.Host(rw.Host)
	if !ok {
		return nil, fmt.Errorf("%s's host %s is not in the team's state", rw.Member, rw.Host)
	}
	main, err := localRepo(ctx, st)
	if err != nil {
		return nil, err
	}
	sh, err := hostOf(h.SSH)
	if err != nil {
		return nil, err
	}
	repo := worktrees.RemoteRepo{Host: sh, Name: h.Name, Dir: rw.Main}
	if _, err := repo.SnapshotRef(ctx, rw.Path, st.Team, rw.Member); err != nil {
		return nil, err
	}
	refs := []string{worktrees.WorkRef(st.Team, rw.Member), "refs/heads/" + rw.Branch}
	hasBase := rw.Base != "" && worktrees.CheckBranch(rw.Base) == nil
	if hasBase {
		refs = append(refs, "refs/heads/"+rw.Base)
	}
	if err := repo.FetchRemote(ctx, main, refs...); err != nil {
		return nil, err
	}
	w := &remoteWork{rw: rw, main: main}
	if w.work, err = worktrees.ResolveCommit(ctx, main, worktrees.RemoteRef(h.Name, refs[0])); err != nil {
		return nil, err
	}
	if w.branch, err = worktrees.ResolveCommit(ctx, main, worktrees.RemoteRef(h.Name, refs[1])); err != nil {
		return nil, err
	}
	if hasBase {
		w.base, _ = worktrees.ResolveCommit(ctx, main, worktrees.RemoteRef(h.Name, refs[2]))
	}
	return w, nil
}

// remoteChanges is what member rw's work on its host changed since its
// base there: its commits and its uncommitted work, as diff shows a
// worktree's here.
func remoteChanges(ctx context.Context, st *state.Team, rw *state.RemoteWorktree, mode DiffMode) WorkChanges {
	wc := WorkChanges{Member: rw.Member, Members: []string{rw.Member}, Worktree: true, Path: rw.Host + ":" + rw.Path,
		Branch: rw.Branch, Files: []worktrees.FileChange{}}
	w, err := fetchRemoteWork(ctx, st, rw)
	if err != nil {
		wc.Error = err.Error()
		return wc
	}
	from := w.branch
	if w.base != "" {
		if mb, err := worktrees.MergeBase(ctx, w.main, w.base, w.branch); err == nil {
			from = mb
		}
		wc.Base = &worktrees.Base{Name: rw.Base, Commit: w.base, Branch: true}
		if n, err := worktrees.CountCommits(ctx, w.main, from, w.branch); err == nil {
			wc.Commits = n
		}
	}
	if wc.Files, err = worktrees.DiffFiles(ctx, w.main, from, w.work); err != nil {
		wc.Error = err.Error()
		return wc
	}
	if unc, err := worktrees.DiffFiles(ctx, w.main, w.branch, w.work); err == nil {
		wc.Uncommitted = len(unc)
	}
	if mode == DiffPatch {
		if wc.Patch, err = worktrees.Patch(ctx, w.main, from, w.work); err != nil {
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
	w, err := fetchRemoteWork(ctx, st, rw)
	if err != nil {
		return l, err
	}
	if unc, err := worktrees.DiffFiles(ctx, w.main, w.branch, w.work); err != nil {
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
	l.Landed, err = worktrees.Land(ctx, worktrees.LandSpec{Main: w.main, Branch: rw.Branch, Into: into, Source: w.branch,
		Squash: o.Squash, Message: o.Message})
	return l, err
}
