package worktrees

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/teamctl/teamctl/sshconn"
)

// Work on another host: a member there works in a worktree of the host's
// repository (its root), made there with git over ssh; its work comes here
// with git's own transport over the same ssh (git fetch), never by copying
// files: its branch, and its whole work (uncommitted too) as a commit the
// host makes without touching its index or files (SnapshotRef), each into
// refs/teamctl/remote/<host>/… of this machine's repository, where diff,
// conflicts and merge read it as any commit.

// RemoteRepo is a repository on another host.
type RemoteRepo struct {
	Host sshconn.Host
	Name string // the host's name in the layout
	Dir  string // the repository's top there (absolute)
}

// remoteTimeout bounds one git command on the host.
const remoteTimeout = 2 * time.Minute

// git runs git in dir on the host (LC_ALL=C, no prompt), its words quoted.
func (r RemoteRepo) git(ctx context.Context, dir string, args ...string) (string, error) {
	line := "LC_ALL=C GIT_TERMINAL_PROMPT=0 git -C " + sshconn.Quote(dir) + " " + sshconn.QuoteArgs(args)
	return r.Host.RunLine(ctx, remoteTimeout, line)
}

// RemoteWorktree is where a member's worktree is on its host.
type RemoteWorktree struct {
	Path, Branch, Base string
	Created            bool // made now (not there before)
	CreatedBranch      bool
}

// EnsureRemote makes (or finds) member's worktree of team in r: at
// <top>/.teamctl/worktrees/<team>/<member> on branch (made from base, ""
// for the host's HEAD, when it is not there), with .teamctl/worktrees/ in
// the host repository's info/exclude.
func (r RemoteRepo) EnsureRemote(ctx context.Context, team, member, branch, base string) (RemoteWorktree, error) {
	if err := CheckBranch(branch); err != nil {
		return RemoteWorktree{}, err
	}
	w := RemoteWorktree{Path: path.Join(r.Dir, DefaultFolder, team, member), Branch: branch, Base: base}
	list, err := r.git(ctx, r.Dir, "worktree", "list", "--porcelain")
	if err != nil {
		return w, fmt.Errorf("%s: %w", r.Name, err)
	}
	for _, l := range strings.Split(list, "\n") {
		if p, ok := strings.CutPrefix(l, "worktree "); ok && p == w.Path {
			return w, nil // made before
		}
	}
	if w.Base == "" {
		head, err := r.git(ctx, r.Dir, "symbolic-ref", "-q", "--short", "HEAD")
		if err != nil {
			return w, fmt.Errorf("%s: the repository's branch: %w", r.Name, err)
		}
		w.Base = strings.TrimSpace(head)
	}
	_, err = r.git(ctx, r.Dir, "rev-parse", "-q", "--verify", "refs/heads/"+branch)
	w.CreatedBranch = err != nil
	args := []string{"worktree", "add", "--quiet"}
	if w.CreatedBranch {
		args = append(args, "-b", branch, "--", w.Path, w.Base)
	} else {
		args = append(args, "--", w.Path, branch)
	}
	if _, err := r.git(ctx, r.Dir, args...); err != nil {
		return w, fmt.Errorf("%s: make the worktree: %w", r.Name, err)
	}
	w.Created = true
	common, err := r.git(ctx, r.Dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err == nil {
		ex := path.Join(strings.TrimSpace(common), "info", "exclude")
		pattern := "/" + DefaultFolder + "/"
		_, err = r.Host.RunLine(ctx, remoteTimeout, "f="+sshconn.Quote(ex)+"; mkdir -p \"$(dirname \"$f\")\"; grep -qxF "+
			sshconn.Quote(pattern)+" \"$f\" 2>/dev/null || printf '%s\\n' "+sshconn.Quote(pattern)+" >> \"$f\"")
	}
	if err != nil {
		return w, fmt.Errorf("%s: exclude the worktrees folder: %w", r.Name, err)
	}
	return w, nil
}

// WorkRef is the ref, in the host's repository, of a member's whole work.
func WorkRef(team, member string) string { return "refs/teamctl/work/" + team + "/" + member }

// SnapshotRef makes, in the host's repository, a commit of the worktree at
// wt as it is, uncommitted changes and untracked files included (ignored
// ones not), on top of its HEAD, through a temporary index (its own index
// and files untouched), and points WorkRef(team, member) at it.
func (r RemoteRepo) SnapshotRef(ctx context.Context, wt, team, member string) (string, error) {
	ref := WorkRef(team, member)
	if err := CheckBranch(strings.TrimPrefix(ref, "refs/")); err != nil {
		return "", err
	}
	// One line: the index is a temporary file of its own, removed after.
	line := "set -e; cd " + sshconn.Quote(wt) + "; export LC_ALL=C GIT_TERMINAL_PROMPT=0 GIT_OPTIONAL_LOCKS=0 " +
		"GIT_AUTHOR_NAME=teamctl GIT_AUTHOR_EMAIL=teamctl@localhost GIT_COMMITTER_NAME=teamctl GIT_COMMITTER_EMAIL=teamctl@localhost; " +
		"i=$(mktemp); trap 'rm -f \"$i\"' EXIT; export GIT_INDEX_FILE=\"$i\"; " +
		"git read-tree HEAD; git add -A; t=$(git write-tree); " +
		"c=$(git commit-tree \"$t\" -p HEAD -m 'teamctl: the work of a member, uncommitted included'); " +
		"git update-ref " + sshconn.Quote(ref) + " \"$c\"; printf '%s\\n' \"$c\""
	out, err := r.Host.RunLine(ctx, remoteTimeout, line)
	if err != nil {
		return "", fmt.Errorf("%s: the work of %s: %w", r.Name, member, err)
	}
	return strings.TrimSpace(out), nil
}

// RemoteRef is the ref of this machine's repository that holds what was
// fetched of ref (refs/heads/X or refs/teamctl/work/T/M) from host.
func RemoteRef(host, ref string) string {
	return "refs/teamctl/remote/" + host + "/" + strings.TrimPrefix(ref, "refs/")
}

// FetchRemote fetches refs of r into main (this machine's repository), each
// into RemoteRef, over the host's shared ssh connection.
func (r RemoteRepo) FetchRemote(ctx context.Context, main string, refs ...string) error {
	args := []string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", r.URL()}
	for _, ref := range refs {
		args = append(args, "+"+ref+":"+RemoteRef(r.Name, ref))
	}
	_, err := gitEnv(ctx, main, []string{"GIT_SSH_COMMAND=" + r.Host.GitSSHCommand(), "GIT_SSH_VARIANT=ssh"}, "", args...)
	if err != nil {
		return fmt.Errorf("fetch from %s: %w", r.Name, err)
	}
	return nil
}

// URL is the repository as git's ssh transport reaches it.
func (r RemoteRepo) URL() string {
	dest := r.Host.Dest
	if strings.HasPrefix(dest, "ssh://") {
		return strings.TrimRight(dest, "/") + r.Dir
	}
	return dest + ":" + r.Dir
}

// ResolveCommit is the commit rev names in dir's repository.
func ResolveCommit(ctx context.Context, dir, rev string) (string, error) {
	return revParse(ctx, dir, rev+"^{commit}")
}

// ErrNoWorktree: no worktree at the path on the host (removed already).
var ErrNoWorktree = errors.New("no worktree there")

// Dirty is how many files of the worktree at wt on the host differ from its
// HEAD, untracked ones included.
func (r RemoteRepo) Dirty(ctx context.Context, wt string) (int, error) {
	if _, err := r.Host.RunLine(ctx, remoteTimeout, "test -d "+sshconn.Quote(wt)); err != nil {
		var se *sshconn.Error
		if errors.As(err, &se) && !se.Unreachable() {
			return 0, ErrNoWorktree
		}
		return 0, err
	}
	out, err := r.git(ctx, wt, "status", "--porcelain", "-z", "--untracked-files=all")
	if err != nil {
		return 0, err
	}
	return strings.Count(out, "\x00"), nil
}

// RemoveWorktree removes the worktree at wt from the host's repository
// (force: with its uncommitted work), then prunes what git still records.
func (r RemoteRepo) RemoveWorktree(ctx context.Context, wt string, force bool) error {
	args := []string{"worktree", "remove"}
	if force {
		args = append(args, "--force")
	}
	if _, err := r.git(ctx, r.Dir, append(args, "--", wt)...); err != nil {
		return fmt.Errorf("%s: %w", r.Name, err)
	}
	_, err := r.git(ctx, r.Dir, "worktree", "prune")
	return err
}

// Merged reports whether branch's head is in base (both branches of the
// host's repository).
func (r RemoteRepo) Merged(ctx context.Context, branch, base string) (bool, error) {
	for _, b := range []string{branch, base} {
		if err := CheckBranch(b); err != nil {
			return false, err
		}
	}
	_, err := r.git(ctx, r.Dir, "merge-base", "--is-ancestor", "refs/heads/"+branch, "refs/heads/"+base)
	var se *sshconn.Error
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &se) && se.Code == 1:
		return false, nil
	}
	return false, err
}

// DeleteBranch deletes branch from the host's repository.
func (r RemoteRepo) DeleteBranch(ctx context.Context, branch string) error {
	if err := CheckBranch(branch); err != nil {
		return err
	}
	_, err := r.git(ctx, r.Dir, "branch", "-D", branch)
	return err
}

// MergedHere reports whether branch of r, fetched into main (this
// machine's repository), is in main's branch base: its work landed here.
func (r RemoteRepo) MergedHere(ctx context.Context, main, branch, base string) (bool, error) {
	for _, b := range []string{branch, base} {
		if err := CheckBranch(b); err != nil {
			return false, err
		}
	}
	if err := r.FetchRemote(ctx, main, "refs/heads/"+branch); err != nil {
		return false, err
	}
	return isAncestor(ctx, main, RemoteRef(r.Name, "refs/heads/"+branch), "refs/heads/"+base), nil
}

// RemoteWork is what FetchWork fetched of a member's work on another host:
// commits of this machine's repository.
type RemoteWork struct {
	Work   string // its whole work, uncommitted included (SnapshotRef's commit)
	Branch string // its branch's head
	Base   string // its base's head there; "" when its base is no branch
}

// FetchWork fetches into main (this machine's repository) the work of
// member of team in the worktree at wt on branch, and base (a branch of the
// host's, "" for none): its whole work as SnapshotRef makes it, its branch
// and its base, each into RemoteRef.
func (r RemoteRepo) FetchWork(ctx context.Context, main, team, member, wt, branch, base string) (RemoteWork, error) {
	var w RemoteWork
	if err := CheckBranch(branch); err != nil {
		return w, fmt.Errorf("the branch recorded for %s: %w", member, err)
	}
	if _, err := r.SnapshotRef(ctx, wt, team, member); err != nil {
		return w, err
	}
	refs := []string{WorkRef(team, member), "refs/heads/" + branch}
	hasBase := base != "" && CheckBranch(base) == nil
	if hasBase {
		refs = append(refs, "refs/heads/"+base)
	}
	if err := r.FetchRemote(ctx, main, refs...); err != nil {
		return w, err
	}
	var err error
	if w.Work, err = ResolveCommit(ctx, main, RemoteRef(r.Name, refs[0])); err != nil {
		return w, err
	}
	if w.Branch, err = ResolveCommit(ctx, main, RemoteRef(r.Name, refs[1])); err != nil {
		return w, err
	}
	if hasBase {
		w.Base, _ = ResolveCommit(ctx, main, RemoteRef(r.Name, refs[2]))
	}
	return w, nil
}
