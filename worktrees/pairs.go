package worktrees

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// Side is one member's work, to be merged with others': whose it is, the
// main checkout of its repository, and its whole work as one commit
// (Work.Commit).
type Side struct {
	Name, Main, Commit string
}

// Pairs are the pairs of sides that can merge, each once, in order: every
// side with every later one of the same repository (worktrees of two
// repositories never merge). `teamctl conflicts` and the supervisor's radar
// compare the same pairs.
func Pairs(sides []Side) [][2]Side {
	var out [][2]Side
	for i, a := range sides {
		for _, b := range sides[i+1:] {
			if filepath.Clean(a.Main) == filepath.Clean(b.Main) {
				out = append(out, [2]Side{a, b})
			}
		}
	}
	return out
}

// WorkCommit is the whole work of a member's worktree as one commit: its
// commits and its uncommitted files (ReadWork, then Work.Commit), read
// without touching its index or files. main, path and branch are as a team's
// state records them, which anyone can edit: paths must be absolute, the
// branch is checked before git sees it.
func WorkCommit(ctx context.Context, main, path, branch string) (string, error) {
	if !filepath.IsAbs(main) || (path != "" && !filepath.IsAbs(path)) {
		return "", fmt.Errorf("the worktree %q of %q is not at an absolute path", path, main)
	}
	w, err := ReadWork(ctx, main, path, branch)
	if err != nil {
		return "", err
	}
	return w.Commit(ctx, main)
}

// RefFiles are the files whose change means a member's branch moved: its
// worktree's HEAD (a checkout, a commit on a detached HEAD) and its branch's
// loose ref (a commit, a reset, a rebase). The supervisor's radar watches
// them. Only a worktree git lists as one of main's is asked; the branch is
// checked first (it comes from a file anyone can edit).
func RefFiles(ctx context.Context, main, path, branch string) ([]string, error) {
	if err := CheckBranch(branch); err != nil {
		return nil, err
	}
	e, err := Linked(ctx, main, path)
	if err != nil {
		return nil, err
	}
	out, err := git(ctx, e.Path, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir")
	if err != nil {
		return nil, fmt.Errorf("the git folders of %s: %w", e.Path, err)
	}
	dirs := strings.Split(strings.TrimSpace(out), "\n")
	if len(dirs) != 2 {
		return nil, fmt.Errorf("the git folders of %s: git rev-parse said %q", e.Path, out)
	}
	return []string{filepath.Join(dirs[0], "HEAD"), filepath.Join(dirs[1], "refs", "heads", filepath.FromSlash(branch))}, nil
}
