// Package worktrees is the only code that runs git: it places members'
// worktrees (PlaceOf: from the layout, where git says the repository is) and
// makes them, reads what one holds (its commits and, through a temporary
// index, its uncommitted files) and what changed since its base, tells what
// merging two of them would do (git merge-tree, no checkout), lands one
// branch in another (Land: merge-tree, commit-tree, a compare-and-swap of
// the ref), tells what removing one would lose, keeps that work as a
// snapshot (a commit under refs/teamctl/snapshots/), records which
// repositories hold snapshots (SnapshotRecord), lists and brings them back,
// removes worktrees the way git wants to, and says which git there is
// (GitVersion, for doctor). It never changes a checkout's index or files but
// to make or remove a worktree, to bring a clean checkout of a branch Land
// moved forward, and to set the index of a worktree whose work --wip
// committed (MoveBranch) to that commit.
package worktrees

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// gitTimeout bounds one git command when the caller's context has no
// deadline (a caller that wants another bound gives its context one).
const gitTimeout = 30 * time.Second

// GitError is a git command that failed, with what it said.
type GitError struct {
	Dir    string
	Args   []string
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s (in %s): %s", strings.Join(e.Args, " "), e.Dir, msg)
}

func (e *GitError) Unwrap() error { return e.Err }

// git runs git in dir and returns its standard output. Messages are in English
// (LC_ALL=C) because some are told apart by their text; git never prompts.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	return gitEnv(ctx, dir, nil, "", args...)
}

// gitEnv is git with more environment (later values win) and stdin.
func gitEnv(ctx context.Context, dir string, env []string, stdin string, args ...string) (string, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, gitTimeout)
		defer cancel()
	}
	cmd := gitCommand(ctx, dir, env, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	err := cmd.Run()
	trace(cmd, args, time.Since(t0))
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", err, ctx.Err())
		}
		return stdout.String(), &GitError{Dir: dir, Args: args, Stderr: stderr.String(), Err: err}
	}
	return stdout.String(), nil
}

// gitCommand is the command gitEnv runs, for one that talks with git as it
// runs (its Args[3:] are args).
func gitCommand(ctx context.Context, dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(append(os.Environ(), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0"), env...)
	return cmd
}

// ErrNoGit is GitVersion's error when there is no git on PATH.
var ErrNoGit = errors.New("git not found")

// GitVersion is what `git --version` prints, trimmed (doctor's check), given
// 10 s at most. An error wrapping ErrNoGit when there is no git to run; else
// the error is exec's own (an exit status, a signal), for doctor to show as
// it is.
func GitVersion(ctx context.Context) (string, error) {
	path, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoGit, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// Repo is a git repository as seen from a folder in one of its checkouts.
type Repo struct {
	Top    string // top of the checkout the folder is in (the main one or a worktree)
	Common string // the repository's common git folder (<main>/.git)
	Main   string // top of the main checkout, where git worktree commands run
}

// FindRepo finds the repository dir is in.
func FindRepo(ctx context.Context, dir string) (Repo, error) {
	if c := readsOf(ctx); c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if r, ok := c.repos[dir]; ok {
			return r.r, r.err
		}
		r, err := findRepo(ctx, dir)
		c.repos[dir] = repoRead{r, err}
		return r, err
	}
	return findRepo(ctx, dir)
}

func findRepo(ctx context.Context, dir string) (Repo, error) {
	out, err := git(ctx, dir, "rev-parse", "--show-toplevel", "--git-common-dir")
	if err != nil {
		return Repo{}, fmt.Errorf("%s is not in a git repository: %w", dir, err)
	}
	f := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(f) != 2 {
		return Repo{}, fmt.Errorf("git rev-parse in %s: unexpected output %q", dir, out)
	}
	r := Repo{Top: f[0], Common: f[1]}
	if !filepath.IsAbs(r.Common) {
		// git says ".git" or "../.git" relative to dir: made absolute, so
		// that "." and the full path are one repository, never two.
		abs, err := filepath.Abs(dir)
		if err != nil {
			return Repo{}, fmt.Errorf("repository of %s: %w", dir, err)
		}
		r.Common = filepath.Join(abs, r.Common)
	}
	if r.Common, err = filepath.EvalSymlinks(r.Common); err != nil {
		return Repo{}, fmt.Errorf("repository of %s: %w", dir, err)
	}
	if filepath.Base(r.Common) != ".git" {
		return Repo{}, fmt.Errorf("repository of %s (%s) is bare or has its git folder elsewhere: teamctl makes worktrees only beside a main checkout", dir, r.Common)
	}
	r.Main = filepath.Dir(r.Common)
	return r, nil
}

// gitDir reads the worktree's .git file ("gitdir: <common>/worktrees/<name>").
func gitDir(path string) (string, error) {
	b, err := os.ReadFile(filepath.Join(path, ".git"))
	if err != nil {
		return "", fmt.Errorf("%s: %w (%w)", path, ErrNotWorktree, err)
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok {
		return "", fmt.Errorf("%s: %w (its .git file does not name a gitdir)", path, ErrNotWorktree)
	}
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(path, gitdir)
	}
	return gitdir, nil
}

// checkoutGitDir is the git folder of the checkout whose top is path: its
// .git folder for a main checkout, the one its .git file names for a worktree.
func checkoutGitDir(path string) (string, error) {
	dotgit := filepath.Join(path, ".git")
	if fi, err := os.Lstat(dotgit); err == nil && fi.IsDir() {
		return dotgit, nil
	}
	return gitDir(path)
}

// MainOf finds the main checkout of the worktree at path through its .git file,
// without running git. It returns ErrNotWorktree when path has no such file.
func MainOf(path string) (string, error) {
	gitdir, err := gitDir(path)
	if err != nil {
		return "", err
	}
	common := filepath.Join(gitdir, "..", "..")
	if c, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		common = strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitdir, common)
		}
	}
	common = filepath.Clean(common)
	if filepath.Base(common) != ".git" {
		return "", fmt.Errorf("%s: repository %s has no main checkout", path, common)
	}
	return filepath.Dir(common), nil
}

// Detached reports, from the worktree's HEAD file and without running git,
// whether its HEAD is detached (its commits are then on no branch of its own).
func Detached(path string) (bool, error) {
	gitdir, err := gitDir(path)
	if err != nil {
		return false, err
	}
	b, err := os.ReadFile(filepath.Join(gitdir, "HEAD"))
	if err != nil {
		return false, fmt.Errorf("HEAD of worktree %s: %w", path, err)
	}
	return !strings.HasPrefix(string(b), "ref: "), nil
}

// ErrNotWorktree says a folder is not a git worktree (any more).
var ErrNotWorktree = errors.New("not a git worktree")

// Registered lists the worktrees git knows of in the repository of main
// (paths as git prints them, the main checkout first).
func Registered(ctx context.Context, main string) ([]string, error) {
	list, err := List(ctx, main)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(list))
	for i, e := range list {
		paths[i] = e.Path
	}
	return paths, nil
}

// Entry is one worktree as `git worktree list --porcelain` shows it.
type Entry struct {
	Path     string
	Head     string // the commit checked out
	Branch   string // its branch, short ("worktree-x"); "" when detached
	Detached bool
	Bare     bool
	Prunable bool // git keeps a record of it, but its folder is gone
}

// List lists the worktrees of the repository dir is in, the main checkout (or
// bare repository) first, as `git worktree list --porcelain` says. (Without
// -z, which git only has since 2.36: a path holding a newline is then
// misread, and so matches no path asked about, which callers take as "not a
// worktree".)
func List(ctx context.Context, dir string) ([]Entry, error) {
	if c := readsOf(ctx); c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if r, ok := c.lists[dir]; ok {
			return slices.Clone(r.l), r.err
		}
		l, err := listWorktrees(ctx, dir)
		c.lists[dir] = listRead{l, err}
		return slices.Clone(l), err
	}
	return listWorktrees(ctx, dir)
}

func listWorktrees(ctx context.Context, dir string) ([]Entry, error) {
	out, err := git(ctx, dir, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	var list []Entry
	for _, line := range strings.Split(out, "\n") {
		key, val, _ := strings.Cut(line, " ")
		if key == "worktree" {
			list = append(list, Entry{Path: val})
			continue
		}
		if len(list) == 0 {
			continue
		}
		e := &list[len(list)-1]
		switch key {
		case "HEAD":
			e.Head = val
		case "branch":
			e.Branch = strings.TrimPrefix(val, "refs/heads/")
		case "detached":
			e.Detached = true
		case "bare":
			e.Bare = true
		case "prunable":
			e.Prunable = true
		}
	}
	return list, nil
}

// Linked returns git's entry for path as a linked worktree of the repository
// whose main checkout is main. It is ErrNotWorktree when main is not a main
// checkout (a folder holding the repository's .git folder, listed first by
// git) or git lists no linked worktree at path: the main checkout itself is
// never one, nor is a folder git's record of which is prunable (its .git file
// is gone).
func Linked(ctx context.Context, main, path string) (Entry, error) {
	if fi, err := os.Lstat(filepath.Join(main, ".git")); err != nil || !fi.IsDir() {
		return Entry{}, fmt.Errorf("%s: %w of %s, which is no repository's main checkout", path, ErrNotWorktree, main)
	}
	list, err := List(ctx, main)
	if err != nil {
		return Entry{}, err
	}
	return linkedIn(list, main, path)
}

// linkedIn is Linked, on what List said of main's repository. A path is
// resolved once, not once an entry (a team's worktrees read at once made it
// resolve 2 paths for each of n entries for each of n members: 3 ms of
// bench/radar's processor time for 8).
func linkedIn(list []Entry, main, path string) (Entry, error) {
	if len(list) == 0 || list[0].Bare || !samePath(list[0].Path, main) {
		return Entry{}, fmt.Errorf("%s: %w of %s, which is no repository's main checkout", path, ErrNotWorktree, main)
	}
	p := resolve(path)
	for _, e := range list[1:] {
		if !e.Bare && p.same(e.Path) {
			if e.Prunable {
				// git keeps a record, but the folder is no worktree any more.
				return Entry{}, fmt.Errorf("%s: %w any more (git's record of it is prunable)", path, ErrNotWorktree)
			}
			return e, nil
		}
	}
	return Entry{}, fmt.Errorf("%s: %w that git lists in %s", path, ErrNotWorktree, main)
}

// CommonDir is the common git folder of the repository whose main checkout
// is main, absolute and with symlinks resolved: what tells two names of one
// repository apart from two repositories. It runs no git (main/.git must
// be a folder).
func CommonDir(main string) (string, error) {
	abs, err := filepath.Abs(filepath.Join(main, ".git"))
	if err != nil {
		return "", err
	}
	r, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s has no .git folder", main)
	}
	return r, nil
}

// samePath compares two paths after resolving symlinks (git prints resolved ones).
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true // resolved alike, or neither resolves: compared clean
	}
	return resolve(a).same(b)
}

// resolvedPath is a path as samePath compares it.
type resolvedPath struct {
	clean, real string
	ok          bool // real is the path resolved
}

func resolve(p string) resolvedPath {
	r, err := filepath.EvalSymlinks(p)
	return resolvedPath{filepath.Clean(p), r, err == nil}
}

// same is samePath of r's path and b.
func (r resolvedPath) same(b string) bool {
	if filepath.Clean(b) == r.clean {
		return true
	}
	if !r.ok {
		return false // compared clean
	}
	rb, err := filepath.EvalSymlinks(b)
	return err == nil && rb == r.real
}
