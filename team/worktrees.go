package team

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/trust"
	"github.com/teamctl/teamctl/worktrees"
)

// CheckWorktrees says, for each member of l that wants a worktree, why it
// cannot have one where it is (not in a git repository, a bare one, a
// worktrees folder inside the checkout…): what `up` would refuse, found
// without making anything.
func CheckWorktrees(ctx context.Context, l *layouts.Layout) []error {
	var errs []error
	for _, m := range l.All() {
		if m.Worktree == nil || m.Host != "" {
			continue
		}
		if _, err := worktrees.PlaceOf(ctx, l, m); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// prepareWorktrees makes (or reuses) every member's worktree and returns the
// layout with those members working in them, and the worktrees teamctl made,
// known ones first. What was made is returned along with an error too, so it
// can be recorded (clean removes only what state says is teamctl's).
func (u *upRun) prepareWorktrees(ctx context.Context, known []state.Worktree) (*layouts.Layout, []state.Worktree, error) {
	l := *u.l
	l.Members = slices.Clone(u.l.Members)
	ours := slices.Clone(known)
	excluded := map[string]bool{} // repositories whose info/exclude is done
	for i := -1; i < len(l.Members); i++ {
		m := &l.Lead
		if i >= 0 {
			m = &l.Members[i]
		}
		if m.Worktree == nil || m.Host != "" {
			continue // on another host, made there (createOn)
		}
		p, err := worktrees.PlaceOf(ctx, u.l, *m)
		if err != nil {
			return nil, ours, err
		}
		made, err := worktrees.Ensure(ctx, worktrees.Spec{Main: p.Repo.Main, Path: p.Path, Branch: p.Branch, Base: p.Base, Owner: u.l.Team + "/" + m.Name})
		if err != nil {
			return nil, ours, fmt.Errorf("member %s: %w", m.Name, err)
		}
		i := slices.IndexFunc(ours, func(w state.Worktree) bool { return w.Path == p.Path })
		switch {
		case made.Created && i < 0:
			// The folder is recorded too: clean removes a recorded worktree
			// only at <folder>/<team>/<member>.
			ours = append(ours, state.Worktree{
				Member: m.Name, Path: p.Path, Main: p.Repo.Main, Folder: p.Folder, Branch: p.Branch,
				Base: made.Base, CreatedBranch: made.CreatedBranch, CreatedAt: u.w.clock.Now().UTC(),
			})
		case i >= 0 && ours[i].Folder == "" && ours[i].Main == p.Repo.Main:
			ours[i].Folder = p.Folder // recorded by an older teamctl
		}
		if made.Created {
			u.progress("%-16s worktree %s (branch %s)", m.Name, p.Path, p.Branch)
		}
		if u.l.Worktrees == "" && !excluded[p.Repo.Common] {
			if err := worktrees.Exclude(p.Repo.Common, "/"+worktrees.DefaultFolder+"/"); err != nil {
				return nil, ours, err
			}
			excluded[p.Repo.Common] = true
		}
		if err := os.MkdirAll(p.Cwd, 0o755); err != nil {
			return nil, ours, fmt.Errorf("member %s: %w", m.Name, err)
		}
		m.Cwd = p.Cwd
		if m.IsClaude() {
			if err := u.trust(*m, p); err != nil {
				return nil, ours, err
			}
		}
	}
	return &l, ours, nil
}

// trust makes sure Claude Code will not stop at its trust dialog in a member's
// worktree: a worktree of a trusted repository is trusted (wherever it is);
// otherwise the layout's trust: true records it, and without that a person is told.
func (u *upRun) trust(m layouts.Member, p worktrees.Place) error {
	cfg, dir := trust.ConfigOf(u.l, m), p.Path
	ok, err := claudecode.Trusted(cfg, p.Cwd, p.Path, p.Repo.Main)
	if err != nil || ok {
		return err
	}
	if !u.l.Trust {
		if trust.StandIn(u.l) {
			return nil // teamctl's stand-in asks nothing
		}
		u.note("%s's worktree %s is not trusted by Claude Code, which will ask first (`teamctl answer` or attach); `trust: true` in the layout records it as trusted", m.Name, dir)
		return nil
	}
	if err := claudecode.Trust(cfg, dir); err != nil {
		return fmt.Errorf("member %s: %w", m.Name, err)
	}
	u.progress("%-16s trusted %s in %s", m.Name, dir, cfg)
	return nil
}

// warnUntrusted notes, folder by folder, the Claude Code members of l
// (without a worktree: prepareWorktrees speaks for those) that will stop at
// Claude Code's trust dialog because it does not trust their folder yet.
func (u *upRun) warnUntrusted(ctx context.Context, l *layouts.Layout) {
	var dirs []string
	who := map[string][]string{}
	for _, ft := range u.w.trustOf(ctx, l) {
		if ft.Trusted || ft.ByUp || ft.Err != nil || ft.Worktree {
			continue
		}
		if who[ft.Dir] == nil {
			dirs = append(dirs, ft.Dir)
		}
		who[ft.Dir] = append(who[ft.Dir], ft.Member)
	}
	for _, d := range dirs {
		u.note("Claude Code does not trust %s yet: %s will stop at its trust dialog (answer it in `teamctl top`, or start claude there once and trust the folder)", d, strings.Join(who[d], ", "))
	}
}
