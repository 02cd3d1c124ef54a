package worktrees

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/teamctl/teamctl/layouts"
)

// DefaultFolder is where members' worktrees go inside the repository
// (under <team>/<member>) unless the layout names another folder.
const DefaultFolder = ".teamctl/worktrees"

// CheckFolder refuses a worktrees folder that is the repository's
// main checkout or a folder above it: <folder>/<team>/<member> could then be
// any folder of the repository, and clean (which removes a recorded worktree
// only at such a place) could not tell the team's worktrees from it.
func CheckFolder(folder, main string) error {
	if !filepath.IsAbs(folder) {
		return fmt.Errorf("%s is not an absolute path", folder)
	}
	rel, err := filepath.Rel(filepath.Clean(folder), filepath.Clean(main))
	if err != nil || rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))) {
		return fmt.Errorf("%s is the repository %s or a folder above it: put the worktrees beside it (../wt) or inside it", folder, main)
	}
	return nil
}

// Place is where a member's worktree goes and what it holds.
type Place struct {
	Repo   Repo
	Folder string // the team's worktrees folder (the layout's worktrees:, else <repo>/.teamctl/worktrees)
	Path   string // the worktree: <Folder>/<team>/<member>
	Cwd    string // the member's folder in it: the worktree plus where its cwd is in the repository
	Branch string
	Base   string // "" for the repository's HEAD
}

// PlaceOf finds where member m of layout l gets its worktree.
func PlaceOf(ctx context.Context, l *layouts.Layout, m layouts.Member) (Place, error) {
	repo, err := FindRepo(ctx, m.Cwd)
	if err != nil {
		return Place{}, fmt.Errorf("member %s wants a worktree: %w", m.Name, err)
	}
	top, err1 := filepath.EvalSymlinks(repo.Top)
	cwd, err2 := filepath.EvalSymlinks(m.Cwd)
	rel, err3 := filepath.Rel(top, cwd)
	if err := firstErr(err1, err2, err3); err != nil {
		return Place{}, fmt.Errorf("member %s: where %s is in its repository: %w", m.Name, m.Cwd, err)
	}
	folder := l.Worktrees
	if folder == "" {
		folder = filepath.Join(repo.Main, DefaultFolder)
	}
	if err := CheckFolder(folder, repo.Main); err != nil {
		return Place{}, fmt.Errorf("member %s: worktrees: %w", m.Name, err)
	}
	p := Place{Repo: repo, Folder: folder, Path: filepath.Join(folder, l.Team, m.Name), Branch: m.Worktree.Branch, Base: m.Worktree.Base}
	p.Cwd = filepath.Join(p.Path, rel)
	if p.Branch == "" {
		p.Branch = "teamctl/" + l.Team + "/" + m.Name
	}
	return p, nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
