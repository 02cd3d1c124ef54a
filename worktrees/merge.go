package worktrees

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// Merge is what merging two commits would do, found without a checkout.
type Merge struct {
	// Both are the files both sides changed, each its own way (git merged
	// them line by line, or could not): a file both changed alike is not
	// among them, as merging it is nothing.
	Both      []string   `json:"both"`
	Conflicts []Conflict `json:"conflicts"`
}

// Conflict is a file whose merge would stop for a person.
type Conflict struct {
	Path string `json:"path"`
	// Kind is git's: "contents" (the same lines changed, or added on both
	// sides), "modify/delete", "binary", "rename/delete", "file/directory"…
	Kind string `json:"kind"`
}

// TryMerge tells what merging commits a and b would do, with `git merge-tree
// --write-tree` (git 2.38 or later, CheckMergeTree), which writes objects only:
// no index, no files, no ref changes. dir is any checkout of the repository.
func TryMerge(ctx context.Context, dir, a, b string) (Merge, error) {
	_, m, err := mergeTree(ctx, dir, a, b)
	return m, err
}

// mergeTree is TryMerge with the tree of the merge (conflict markers in it
// where Conflicts are).
func mergeTree(ctx context.Context, dir, a, b string) (string, Merge, error) {
	out, err := git(ctx, dir, "merge-tree", "--write-tree", "--name-only", "-z", a, b)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		err = nil // 1: the merge has conflicts, which out lists
	}
	var ge *GitError
	if errors.As(err, &ge) && strings.Contains(ge.Stderr, "unrelated histories") {
		return "", Merge{}, fmt.Errorf("merge of %s and %s: %w", short(a), short(b), ErrUnrelated)
	}
	if err != nil {
		return "", Merge{}, fmt.Errorf("merge of %s and %s: %w", short(a), short(b), err)
	}
	tree, _, _ := strings.Cut(out, "\x00")
	m, err := parseMergeTree(out)
	return strings.TrimSpace(tree), m, err
}

// parseMergeTree reads `git merge-tree --write-tree --name-only -z`: the
// tree, the conflicted files, an empty entry, then messages
// ("<n>\0<path>…\0<type>\0<message>\0"; types such as "Auto-merging" and
// "CONFLICT (contents)" are stable, the messages are not).
func parseMergeTree(out string) (Merge, error) {
	tok := strings.Split(out, "\x00")
	m := Merge{Both: []string{}, Conflicts: []Conflict{}}
	i := 1 // tok[0] is the tree
	conflicted := map[string]int{}
	for ; i < len(tok) && tok[i] != ""; i++ {
		if _, dup := conflicted[tok[i]]; !dup {
			conflicted[tok[i]] = len(m.Conflicts)
			m.Conflicts = append(m.Conflicts, Conflict{Path: tok[i], Kind: "conflict"})
		}
	}
	i++
	both := map[string]bool{}
	kinded := map[string]bool{}
	for i < len(tok) && tok[i] != "" {
		n, err := strconv.Atoi(tok[i])
		if err != nil || n < 0 || i+n+2 >= len(tok) {
			return m, fmt.Errorf("git merge-tree: unexpected message %q", tok[i])
		}
		paths, kind := tok[i+1:i+1+n], tok[i+1+n]
		i += n + 3
		for _, p := range paths {
			if !both[p] {
				both[p] = true
				m.Both = append(m.Both, p)
			}
			c, ok := conflicted[p]
			if k, isConflict := strings.CutPrefix(kind, "CONFLICT ("); isConflict && ok && !kinded[p] {
				m.Conflicts[c].Kind = strings.TrimSuffix(k, ")")
				kinded[p] = true
			}
		}
	}
	for _, c := range m.Conflicts {
		if !both[c.Path] {
			both[c.Path] = true
			m.Both = append(m.Both, c.Path)
		}
	}
	return m, nil
}

// MergeTreeGit is the first git whose merge-tree has --write-tree.
var MergeTreeGit = [2]int{2, 38}

// OldGitError: the git on PATH is older than the one TryMerge needs.
type OldGitError struct{ Version string }

func (e *OldGitError) Error() string {
	return fmt.Sprintf("git %s is too old to tell what a merge would do: that needs git merge-tree --write-tree, of git %d.%d or later", e.Version, MergeTreeGit[0], MergeTreeGit[1])
}

// CheckMergeTree refuses, with an *OldGitError, a git older than MergeTreeGit.
func CheckMergeTree(ctx context.Context) error {
	out, err := git(ctx, "/", "version")
	if err != nil {
		return err
	}
	v := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(out), "git version "))
	if !versionAtLeast(v, MergeTreeGit) {
		return &OldGitError{Version: v}
	}
	return nil
}

// versionAtLeast compares "2.39.5" (or "2.39.5.windows.1") with major.minor.
func versionAtLeast(v string, want [2]int) bool {
	f := strings.SplitN(v, ".", 3)
	if len(f) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(f[0])
	minor, err2 := strconv.Atoi(strings.TrimFunc(f[1], func(r rune) bool { return r < '0' || r > '9' }))
	if err1 != nil || err2 != nil {
		return false
	}
	return major > want[0] || (major == want[0] && minor >= want[1])
}
