package worktrees

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Loss is what removing a worktree, or deleting a branch, would lose.
type Loss struct {
	Changed   []string `json:"changed,omitempty"`   // tracked files with uncommitted changes
	Untracked []string `json:"untracked,omitempty"` // files git does not track (ignored ones are not counted, as git does not)
	Commits   []string `json:"commits,omitempty"`   // "abc1234 subject" of commits not in Base
	Base      string   `json:"base,omitempty"`      // what the commits were checked against
}

// Empty reports whether nothing would be lost.
func (l Loss) Empty() bool { return len(l.Changed)+len(l.Untracked)+len(l.Commits) == 0 }

// String says what would be lost, in words.
func (l Loss) String() string {
	var parts []string
	if len(l.Changed) > 0 {
		parts = append(parts, "uncommitted changes in "+list(l.Changed))
	}
	if len(l.Untracked) > 0 {
		parts = append(parts, "untracked files "+list(l.Untracked))
	}
	if len(l.Commits) > 0 {
		where := "on no other branch"
		if l.Base != "" {
			where = "not merged into " + l.Base
		}
		parts = append(parts, fmt.Sprintf("%d commit(s) %s: %s", len(l.Commits), where, list(l.Commits)))
	}
	return strings.Join(parts, "; ")
}

// list names up to 10 items and counts the rest.
func list(items []string) string {
	const most = 10
	if len(items) <= most {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:most], ", "), len(items)-most)
}

// Inspect tells what removing the worktree at path would lose: uncommitted and
// untracked files, and commits of its HEAD that are not in base (a branch or
// commit; "" for: on no other branch, tag or remote).
func Inspect(ctx context.Context, path, base string) (Loss, error) {
	l, err := Changes(ctx, path)
	if err != nil {
		return l, err
	}
	l.Commits, l.Base, err = unmerged(ctx, path, "HEAD", base)
	return l, err
}

// Changes lists the worktree's uncommitted changes and untracked files.
func Changes(ctx context.Context, path string) (Loss, error) {
	l, _, _, err := changes(ctx, path)
	return l, err
}

// changes is Changes, with the files whose deletion is staged and that are
// not in the folder either (status "D." and not "?"): in neither the index
// nor the folder; and what status said of each file, for a tree of the
// folder made without an index (folderTree).
func changes(ctx context.Context, path string) (Loss, map[string]bool, []statusEntry, error) {
	var l Loss
	deleted := map[string]bool{}
	// Version 2 says each file's modes and ids in HEAD and the index too:
	// what a tree of the folder takes of it without hashing it again.
	out, err := git(ctx, path, "status", "--porcelain=v2", "-z", "--untracked-files=all")
	if err != nil {
		return l, nil, nil, fmt.Errorf("look at worktree %s: %w", path, err)
	}
	entries, err := parseStatus(out)
	if err != nil {
		return l, nil, nil, fmt.Errorf("look at worktree %s: %w", path, err)
	}
	for _, e := range entries {
		switch {
		case e.kind == '?':
			l.Untracked = append(l.Untracked, e.path)
		default:
			l.Changed = append(l.Changed, e.path)
			if e.kind == '1' && e.xy == "D." {
				deleted[e.path] = true
			}
		}
	}
	for _, f := range l.Untracked {
		delete(deleted, f) // made again since: in the folder
	}
	return l, deleted, entries, nil
}

// statusEntry is one file as `git status --porcelain=v2` lists it.
type statusEntry struct {
	kind byte   // '1' changed, '2' renamed or copied, 'u' unmerged, '?' untracked
	xy   string // index and worktree against HEAD and the index: "M.", ".D", ...
	sub  string // "N..." when it is no submodule
	// Modes in HEAD, the index and the folder ("000000": not there), and
	// the ids in HEAD and the index (not for 'u' and '?').
	modeH, modeI, modeW string
	idI                 string
	path                string
	orig                string // a rename's or copy's old name
}

// parseStatus reads `git status --porcelain=v2 -z` (no --branch): the
// changed and unmerged files in the order of their names, as version 1
// lists them (version 2 lists the unmerged after the others), then the
// untracked.
func parseStatus(out string) ([]statusEntry, error) {
	var tracked, untracked []statusEntry
	recs := strings.Split(out, "\x00")
	for i := 0; i < len(recs); i++ {
		r := recs[i]
		if r == "" {
			continue
		}
		var e statusEntry
		var f []string
		switch r[0] {
		case '1':
			if f = strings.SplitN(r, " ", 9); len(f) == 9 {
				e = statusEntry{kind: '1', xy: f[1], sub: f[2], modeH: f[3], modeI: f[4], modeW: f[5], idI: f[7], path: f[8]}
			}
		case '2':
			if f = strings.SplitN(r, " ", 10); len(f) == 10 && i+1 < len(recs) {
				e = statusEntry{kind: '2', xy: f[1], sub: f[2], modeH: f[3], modeI: f[4], modeW: f[5], idI: f[7], path: f[9], orig: recs[i+1]}
				i++
			}
		case 'u':
			if f = strings.SplitN(r, " ", 11); len(f) == 11 {
				e = statusEntry{kind: 'u', xy: f[1], sub: f[2], modeW: f[6], path: f[10]}
			}
		case '?':
			e = statusEntry{kind: '?', path: r[min(2, len(r)):]}
		case '#', '!':
			continue // headers and ignored files: not asked for
		}
		if e.kind == 0 || e.path == "" || (e.kind != '?' && len(e.xy) != 2) {
			return nil, fmt.Errorf("git status: unexpected %.80q", r)
		}
		if e.kind == '?' {
			untracked = append(untracked, e)
		} else {
			tracked = append(tracked, e)
		}
	}
	sort.SliceStable(tracked, func(i, j int) bool { return tracked[i].path < tracked[j].path })
	return append(tracked, untracked...), nil
}

// BranchLoss lists the commits of branch (in the repository of main) that are
// not in base, as Inspect does for a worktree's HEAD.
func BranchLoss(ctx context.Context, main, branch, base string) (Loss, error) {
	var l Loss
	var err error
	l.Commits, l.Base, err = unmerged(ctx, main, "refs/heads/"+branch, base)
	return l, err
}

func unmerged(ctx context.Context, dir, rev, base string) ([]string, string, error) {
	args := []string{"log", "--format=%h %s", rev, "--not"}
	if !validRev(base) {
		base = "" // not a name git could take as a commit: as if gone
	}
	if base != "" {
		if _, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", base+"^{commit}"); err != nil {
			base = "" // the base is gone: check against everything else instead
		}
	}
	if base != "" {
		args = append(args, base)
	} else {
		// Commits no other ref holds would be lost with this one.
		if rev == "HEAD" {
			if out, err := git(ctx, dir, "symbolic-ref", "--quiet", "--short", "HEAD"); err == nil {
				args = append(args, "--exclude="+strings.TrimSpace(out))
			}
		} else {
			args = append(args, "--exclude="+strings.TrimPrefix(rev, "refs/heads/"))
		}
		args = append(args, "--branches", "--tags", "--remotes")
	}
	out, err := git(ctx, dir, append(args, "--")...)
	if err != nil {
		return nil, base, fmt.Errorf("commits of %s in %s: %w", rev, dir, err)
	}
	return lines(out), base, nil
}

func lines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// ErrDirty: git refused to remove a worktree with changes or untracked files.
var ErrDirty = errors.New("the worktree has changes")

// Remove removes the worktree at path with `git worktree remove`, run in the
// main checkout. Without force git itself refuses a worktree with uncommitted
// changes or untracked files (ErrDirty). ErrNotWorktree: git does not know path.
func Remove(ctx context.Context, main, path string, force bool) error {
	args := []string{"worktree", "remove"}
	if force {
		args = append(args, "--force")
	}
	_, err := git(ctx, main, append(args, path)...)
	var ge *GitError
	switch {
	case errors.As(err, &ge) && strings.Contains(ge.Stderr, "is not a working tree"):
		return fmt.Errorf("%s: %w", path, ErrNotWorktree)
	case errors.As(err, &ge) && strings.Contains(ge.Stderr, "contains modified or untracked files"):
		return fmt.Errorf("%s: %w", path, ErrDirty)
	}
	return err
}

// Prune drops git's records of worktrees whose folder is gone.
func Prune(ctx context.Context, main string) error {
	_, err := git(ctx, main, "worktree", "prune")
	return err
}

// BranchExists reports whether the repository of main has the branch.
func BranchExists(ctx context.Context, main, branch string) bool {
	_, err := git(ctx, main, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	return err == nil
}

// Branches lists the repository's branches, in one git call.
func Branches(ctx context.Context, main string) (map[string]bool, error) {
	out, err := git(ctx, main, "for-each-ref", "--format=%(refname:short)", "refs/heads/")
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, b := range lines(out) {
		set[b] = true
	}
	return set, nil
}

// NotMerged lists which of branches hold commits that base does not, in one
// git call.
func NotMerged(ctx context.Context, main, base string, branches []string) (map[string]bool, error) {
	if !validRev(base) {
		return nil, fmt.Errorf("base %q is no branch or commit name", base)
	}
	out, err := git(ctx, main, "branch", "--format=%(refname:short)", "--no-merged", base)
	if err != nil {
		return nil, fmt.Errorf("branches not merged into %s: %w", base, err)
	}
	not := map[string]bool{}
	for _, b := range lines(out) {
		not[b] = true
	}
	res := map[string]bool{}
	for _, b := range branches {
		res[b] = not[b]
	}
	return res, nil
}

// DeleteBranches deletes branches, in one git call; the caller has checked
// what they would lose.
func DeleteBranches(ctx context.Context, main string, branches ...string) error {
	if len(branches) == 0 {
		return nil
	}
	_, err := git(ctx, main, append([]string{"branch", "-D", "--"}, branches...)...)
	return err
}
