package clean

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// teamctlPlace checks that a worktree state.json records is where teamctl
// puts worktrees: <folder>/<team>/<member>, the folder being the one recorded
// with it (for an older record: <main>/.teamctl/worktrees, or the layout's
// worktrees: folder), absolute, neither the repository's main checkout nor a
// folder above it, and with no symlink below it. It returns <folder>/<team>.
func teamctlPlace(team string, w state.Worktree, layoutFolder *string) (string, error) {
	if !filepath.IsAbs(w.Main) || !state.ValidTeamName(w.Member) {
		return "", fmt.Errorf("state.json records it with main checkout %q and member %q", w.Main, w.Member)
	}
	main := filepath.Clean(w.Main)
	folders := []string{w.Folder}
	if w.Folder == "" {
		folders = []string{filepath.Join(main, worktrees.DefaultFolder)}
		if layoutFolder != nil && *layoutFolder != "" {
			folders = append(folders, *layoutFolder)
		}
	}
	for _, f := range folders {
		if !filepath.IsAbs(f) {
			continue
		}
		f = filepath.Clean(f)
		if filepath.Join(f, team, w.Member) != filepath.Clean(w.Path) {
			continue
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
	return "", fmt.Errorf("not where teamctl puts worktrees (<folder>/%s/%s)", team, w.Member)
}

// claudePlace checks that path is where Claude Code 2.1.328 puts a worktree
// of its own, <main checkout>/.claude/worktrees/<slug> (found through the
// worktree's .git file, with no symlink on the way), and returns that main
// checkout.
func claudePlace(path string) (string, error) {
	main, err := worktrees.MainOf(path)
	if err != nil {
		return "", errors.New("not a git worktree")
	}
	rmain, err1 := filepath.EvalSymlinks(main)
	rparent, err2 := filepath.EvalSymlinks(filepath.Dir(path))
	if err := errors.Join(err1, err2); err != nil {
		return "", fmt.Errorf("where %s is: %w", path, err)
	}
	if want := filepath.Join(rmain, ".claude", "worktrees"); rparent != want {
		return "", fmt.Errorf("not in %s, where Claude Code puts its worktrees", want)
	}
	return main, nil
}

// isMainCheckout reports whether dir holds a repository's .git folder.
func isMainCheckout(dir string) bool {
	if dir == "" {
		return false
	}
	fi, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil && fi.IsDir()
}
