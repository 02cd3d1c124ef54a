// Package owned says what teamctl made and may remove: a worktree a team's
// record (state.json, which members can edit) names is honoured only at the
// place the team's layout and teamctl put it, and a branch is teamctl's to
// delete only when its own git config says teamctl made it for that member.
// clean and `teamctl finish` remove by these rules, so that an edited
// record never makes either remove someone else's worktree or branch.
package owned

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// CheckPlace checks that a worktree st (team's state.json) records is one
// teamctl made for a member of the team's layout, where the layout puts it,
// and where teamctl puts worktrees (<folder>/<team>/<member>, no symlink
// below the folder): the only place teamctl removes one from, as `teamctl
// finish` does one member's.
func CheckPlace(ctx context.Context, team string, st *state.Team, w state.Worktree) error {
	l, lerr := ParseLayout(st.LayoutPath)
	rw, _, err := LayoutPlace(ctx, l, lerr, w)
	if err == nil {
		_, err = TeamctlPlace(team, rw)
	}
	if err != nil {
		return fmt.Errorf("the worktree %s of %s: %w", w.Path, w.Member, err)
	}
	return nil
}

// OwnBranch says why the branch of a worktree record st (team's state)
// holds is not teamctl's to delete (nil when it is): see LayoutPlace and
// Branch.
func OwnBranch(ctx context.Context, team string, st *state.Team, w state.Worktree) error {
	l, lerr := ParseLayout(st.LayoutPath)
	_, p, err := LayoutPlace(ctx, l, lerr, w)
	if err == nil {
		_, err = Branch(ctx, team, w, p.Branch)
	}
	return err
}

// ParseLayout parses the layout file state.json names as it is now, never
// blocking on what is at that path (state.ReadLayoutFile).
func ParseLayout(path string) (*layouts.Layout, error) {
	data, err := state.ReadLayoutFile(path)
	if err != nil {
		return nil, err
	}
	return layouts.ParseBytes(path, data)
}

// LayoutPlace checks a worktree record (state.json's, which members can
// edit) against the team's layout l (lerr: why it could not be read): it is
// honoured only for a member of the layout that the layout gives a
// worktree, and only at the place the layout puts that worktree
// (worktrees.PlaceOf: the repository of the member's folder, the layout's
// worktrees: folder or the repository's .teamctl/worktrees). A record for a
// member the team does not have, or with a folder or repository of its own,
// names someone else's worktree. It returns the record with the layout's
// folder in place of its own, and the layout's place.
func LayoutPlace(ctx context.Context, l *layouts.Layout, lerr error, w state.Worktree) (state.Worktree, worktrees.Place, error) {
	if l == nil {
		return w, worktrees.Place{}, fmt.Errorf("the team's layout cannot be read (%v), so nothing but state.json says whose it is", lerr)
	}
	var m *layouts.Member
	for _, x := range l.All() {
		if x.Name == w.Member {
			m = &x
			break
		}
	}
	switch {
	case m == nil:
		return w, worktrees.Place{}, fmt.Errorf("state.json records it for %q, who is not a member of the layout %s", w.Member, l.Path)
	case m.Worktree == nil:
		return w, worktrees.Place{}, fmt.Errorf("the layout %s gives %s no worktree", l.Path, w.Member)
	}
	p, err := worktrees.PlaceOf(ctx, l, *m)
	if err != nil {
		return w, p, err
	}
	if !samePlace(p.Path, w.Path) || !samePlace(p.Repo.Main, w.Main) {
		return w, worktrees.Place{}, fmt.Errorf("not where the layout puts %s's worktree (%s, of %s)", w.Member, p.Path, p.Repo.Main)
	}
	w.Folder = p.Folder
	return w, p, nil
}

// samePlace compares two paths as written, or once symlinks are resolved.
func samePlace(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// Branch checks that the branch of a worktree record (one LayoutPlace
// honours) is one teamctl made for its member, and returns the base teamctl
// recorded for it: it must have the name teamctl gives it (want: the
// layout's worktree branch:, else teamctl/<team>/<member>);
// the branch's git config, written when up made it, must say it was made
// for that member (state.json's created_branch alone does not); and it must
// not be its own base.
func Branch(ctx context.Context, team string, w state.Worktree, want string) (string, error) {
	if w.Branch != want {
		return "", fmt.Errorf("not the name teamctl gives %s's branch (%s)", w.Member, want)
	}
	rec, err := worktrees.RecordOf(ctx, w.Main, w.Branch)
	if err != nil {
		return "", err
	}
	if rec.Owner != team+"/"+w.Member {
		return "", fmt.Errorf("its git config (branch.%s.teamctl-created) does not say teamctl made it for %s/%s", w.Branch, team, w.Member)
	}
	if rec.Base == w.Branch || w.Base == w.Branch {
		return "", errors.New("it is recorded as its own base")
	}
	return rec.Base, nil
}

// TeamctlPlace checks that a worktree record (its folder the layout's, from
// LayoutPlace) is where teamctl puts worktrees: <folder>/<team>/<member>,
// the folder absolute, neither the repository's main checkout nor a folder
// above it, and with no symlink below it. It returns <folder>/<team>.
func TeamctlPlace(team string, w state.Worktree) (string, error) {
	if !filepath.IsAbs(w.Main) || !state.ValidTeamName(w.Member) {
		return "", fmt.Errorf("state.json records it with main checkout %q and member %q", w.Main, w.Member)
	}
	main, f := filepath.Clean(w.Main), filepath.Clean(w.Folder)
	if !filepath.IsAbs(f) || filepath.Join(f, team, w.Member) != filepath.Clean(w.Path) {
		return "", fmt.Errorf("not where teamctl puts worktrees (<folder>/%s/%s)", team, w.Member)
	}
	if err := worktrees.CheckFolder(f, main); err != nil {
		return "", fmt.Errorf("its folder %w", err)
	}
	root := filepath.Join(f, team)
	rroot, err1 := filepath.EvalSymlinks(root)
	rparent, err2 := filepath.EvalSymlinks(filepath.Dir(w.Path))
	switch {
	case errors.Is(err1, fs.ErrNotExist) || errors.Is(err2, fs.ErrNotExist):
		return root, nil // gone: nothing there to remove
	case err1 != nil || err2 != nil:
		return "", fmt.Errorf("where %s is: %w", w.Path, errors.Join(err1, err2))
	case rparent != rroot:
		return "", fmt.Errorf("%s leads elsewhere (%s) through a symlink", filepath.Dir(w.Path), rparent)
	}
	return root, nil
}
