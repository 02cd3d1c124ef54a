package worktrees

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
)

// Pairs are the pairs of sides that can merge, each once, in order, as
// indexes into sides: every side with every later one of the same
// repository (worktrees of two repositories never merge). `teamctl
// conflicts` and the supervisor's radar compare the same pairs.
func Pairs(sides []Side) [][2]int {
	var out [][2]int
	for i, a := range sides {
		for j := i + 1; j < len(sides); j++ {
			if filepath.Clean(a.Main) == filepath.Clean(sides[j].Main) {
				out = append(out, [2]int{i, j})
			}
		}
	}
	return out
}

// Jobs is how many git commands `teamctl conflicts` and `diff` run at a
// time: two per processor, as a git command waits on the disk and its own
// start about as long as it computes (seen: 8 worktrees read in 90 ms one
// at a time, 65 ms two, 55 ms four at a time on 2 cores), eight at most.
func Jobs() int { return min(2*runtime.NumCPU(), 8) }

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

// RefFiles are the files whose change means a member's branch or its base
// moved: its worktree's HEAD (a checkout, a commit on a detached HEAD), its
// branch's loose ref (a commit, a reset, a rebase), the loose ref of base
// when that is a branch (a person's commit on main), and packed-refs (a
// ref git wrote packed, as fetch and pack-refs do). The supervisor's radar
// watches them. Only a worktree git lists as one of main's is asked; the
// branch and base are checked first (they come from a file anyone can edit).
func RefFiles(ctx context.Context, main, path, branch, base string) ([]string, error) {
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
	files := []string{filepath.Join(dirs[0], "HEAD"), filepath.Join(dirs[1], "refs", "heads", filepath.FromSlash(branch)), filepath.Join(dirs[1], "packed-refs")}
	if b := strings.TrimPrefix(base, "refs/heads/"); b != "" && CheckBranch(b) == nil && BranchExists(ctx, main, b) {
		files = append(files, filepath.Join(dirs[1], "refs", "heads", filepath.FromSlash(b)))
	}
	return files, nil
}
