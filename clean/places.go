package clean

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/teamctl/teamctl/worktrees"
)

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
