package worktrees

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/teamctl/teamctl/internal/atomicfile"
)

// Spec asks for a worktree at Path of the repository whose main checkout is
// Main, on Branch (made from Base when it does not exist yet).
type Spec struct {
	Main, Path, Branch, Base string
	// Owner is <team>/<member>: a branch Ensure makes is recorded as made
	// for it, from its base, in the branch's own git config (RecordOf).
	Owner string
}

// Made says what Ensure found or did.
type Made struct {
	Created       bool   // the worktree is new (false: it was there already)
	CreatedBranch bool   // the branch is new
	Base          string // what the branch was made from: a branch name where HEAD was one, else a commit
}

// Ensure makes the worktree of s, or reuses it when git already has it there.
// A folder at s.Path that is not one of the repository's worktrees is an error:
// nothing of a person's is overwritten.
func Ensure(ctx context.Context, s Spec) (Made, error) {
	known, err := Registered(ctx, s.Main)
	if err != nil {
		return Made{}, err
	}
	for _, p := range known {
		if samePath(p, s.Path) {
			return Made{}, nil
		}
	}
	if ents, err := os.ReadDir(s.Path); err == nil && len(ents) > 0 {
		return Made{}, fmt.Errorf("worktree %s: the folder exists and is not a worktree of %s; move it away or choose another folder", s.Path, s.Main)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Made{}, fmt.Errorf("worktree %s: %w", s.Path, err)
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o755); err != nil {
		return Made{}, fmt.Errorf("worktree %s: %w", s.Path, err)
	}
	if BranchExists(ctx, s.Main, s.Branch) {
		if _, err := git(ctx, s.Main, "worktree", "add", "--quiet", s.Path, s.Branch); err != nil {
			return Made{}, fmt.Errorf("worktree %s on existing branch %s: %w", s.Path, s.Branch, err)
		}
		return Made{Created: true}, nil
	}
	base, err := baseName(ctx, s.Main, s.Base)
	if err != nil {
		return Made{}, err
	}
	if _, err := git(ctx, s.Main, "worktree", "add", "--quiet", "-b", s.Branch, s.Path, base); err != nil {
		return Made{}, fmt.Errorf("worktree %s (branch %s from %s): %w", s.Path, s.Branch, base, err)
	}
	made := Made{Created: true, CreatedBranch: true, Base: base}
	if s.Owner != "" {
		if err := recordBranch(ctx, s.Main, s.Branch, BranchRecord{Owner: s.Owner, Base: base}); err != nil {
			return made, fmt.Errorf("worktree %s: %w", s.Path, err)
		}
	}
	return made, nil
}

// BranchRecord is what teamctl wrote in the git config of a branch it made
// (branch.<name>.teamctl-created and branch.<name>.teamctl-base), beside
// the branch and not in state.json: what members edit by accident or on
// purpose (state.json) never says which branch is teamctl's to delete or
// where a member's work lands. A field is "" when git has none.
type BranchRecord struct {
	Owner string // <team>/<member> it was made for
	Base  string // what it was made from (Made.Base)
}

const (
	createdKey = "teamctl-created"
	baseKey    = "teamctl-base"
)

func recordBranch(ctx context.Context, main, branch string, r BranchRecord) error {
	for key, val := range map[string]string{createdKey: r.Owner, baseKey: r.Base} {
		if _, err := git(ctx, main, "config", "branch."+branch+"."+key, val); err != nil {
			return fmt.Errorf("recording branch %s as teamctl's: %w", branch, err)
		}
	}
	return nil
}

// RecordOf reads the record teamctl wrote in branch's git config when it
// made the branch; a branch teamctl did not make has an empty one.
func RecordOf(ctx context.Context, main, branch string) (BranchRecord, error) {
	if err := CheckBranch(branch); err != nil {
		return BranchRecord{}, err
	}
	if c := readsOf(ctx); c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		r, ok := c.records[main]
		if !ok {
			r.m, r.err = allRecords(ctx, main)
			c.records[main] = r
		}
		return r.m[branch], r.err
	}
	get := func(key string) (string, error) {
		out, err := git(ctx, main, "config", "--get", "branch."+branch+"."+key)
		var ge *GitError
		if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) == "" {
			return "", nil // exit 1, nothing said: no such key
		}
		return strings.TrimSpace(out), err
	}
	var r BranchRecord
	var err1, err2 error
	r.Owner, err1 = get(createdKey)
	r.Base, err2 = get(baseKey)
	return r, errors.Join(err1, err2)
}

// baseName turns base ("" or HEAD for the current one) into what a branch is
// later checked against: the branch HEAD is on, else the commit.
func baseName(ctx context.Context, main, base string) (string, error) {
	if base != "" && base != "HEAD" {
		if _, err := git(ctx, main, "rev-parse", "--verify", "--quiet", base+"^{commit}"); err != nil {
			return "", fmt.Errorf("base %q is not a branch, tag or commit of %s", base, main)
		}
		return base, nil
	}
	if out, err := git(ctx, main, "symbolic-ref", "--quiet", "--short", "HEAD"); err == nil {
		return strings.TrimSpace(out), nil
	}
	out, err := git(ctx, main, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return "", fmt.Errorf("the repository %s has no commit to start a worktree from: %w", main, err)
	}
	return strings.TrimSpace(out), nil
}

// Exclude adds pattern to the repository's info/exclude (common is its git
// folder) unless a line says so already.
func Exclude(common, pattern string) error {
	path := filepath.Join(common, "info", "exclude")
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if slices.Contains(strings.Split(string(b), "\n"), pattern) {
		return nil
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	b = append(b, "# teamctl's worktrees\n"+pattern+"\n"...)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, b, 0o644)
}
