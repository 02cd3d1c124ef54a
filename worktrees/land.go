package worktrees

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// LandSpec asks Land to merge Branch into Into, in the repository whose main
// checkout is Main.
type LandSpec struct {
	Main   string
	Branch string // the branch whose work lands
	Into   string // the branch it lands in
	// Source is the commit that lands ("" for Branch's head): a commit of
	// Branch's worktree's uncommitted work on top of it, for --wip.
	Source  string
	Squash  bool   // one parent: Branch's changes as one commit on Into
	Message string // "" for one that names Branch
	// Ready, when not nil, runs once the merge is made and before Into
	// moves; an error stops it there, nothing moved. (--wip moves the
	// member's branch to Source there; tests move Into there, racing.)
	Ready func(ctx context.Context) error
}

// Landed is what Land did.
type Landed struct {
	Branch   string `json:"branch"`
	Into     string `json:"into"`
	Old      string `json:"old"`     // Into before
	New      string `json:"new"`     // Into now (Old when UpToDate)
	Commits  int    `json:"commits"` // Branch's commits that Into did not have
	Squash   bool   `json:"squash,omitempty"`
	UpToDate bool   `json:"up_to_date,omitempty"` // Into had all of it: nothing done
	// Checkout is the checkout of Into that was brought forward with it
	// ("" when Into is checked out nowhere).
	Checkout string `json:"checkout,omitempty"`
}

// ConflictError: merging Branch into Into would conflict; nothing moved.
type ConflictError struct {
	Branch, Into string
	Conflicts    []Conflict
}

func (e *ConflictError) Error() string {
	var files []string
	for _, c := range e.Conflicts {
		files = append(files, fmt.Sprintf("%q (%s)", c.Path, c.Kind))
	}
	return fmt.Sprintf("merging %s into %s would conflict in %s: nothing was merged; `teamctl conflicts` shows them, and the member (or you, in its worktree) can merge %s there first", e.Branch, e.Into, strings.Join(files, ", "), e.Into)
}

// MovedError: Into moved while Land was merging (another merge, a commit):
// the compare-and-swap refused, nothing of either is lost.
type MovedError struct {
	Into, Was string
}

func (e *MovedError) Error() string {
	return fmt.Sprintf("branch %s moved while the merge was made (it was at %s): nothing was merged; run the merge again to land it on what %s is now", e.Into, short(e.Was), e.Into)
}

// CheckoutError: Into is checked out in a checkout Land may not bring
// forward (changes in it, or git stopped half-way there); nothing moved.
type CheckoutError struct {
	Into, Path string
	Busy       string   // "merge", "rebase"… stopped half-way there
	Files      []string // its uncommitted changes
	Err        error    // bringing it forward failed (undone): an untracked file in the way, say
}

func (e *CheckoutError) Error() string {
	what := ""
	switch {
	case e.Busy != "":
		what = "a " + e.Busy + " is stopped half-way there"
	case len(e.Files) > 0:
		what = "it has uncommitted changes: " + list(e.Files)
	default:
		what = fmt.Sprintf("it could not be brought forward (%v)", e.Err)
	}
	return fmt.Sprintf("branch %s is checked out in %s and %s: nothing was merged (its files are as they were); commit or stash there and merge again, or land elsewhere with --into", e.Into, e.Path, what)
}

// Land merges Branch into Into without a checkout: the merge is git
// merge-tree --write-tree, the commit commit-tree's (two parents, or Into's
// alone with Squash), and Into moves only by compare-and-swap (update-ref NEW
// OLD), so a merge that lost a race refuses (*MovedError) and loses nothing.
// A merge that would conflict is a *ConflictError, and nothing moves.
//
// Where Into is checked out (the main checkout, a worktree), that checkout
// must have no uncommitted change, or Land refuses before anything
// (*CheckoutError): it is brought forward with git read-tree -m -u OLD NEW,
// git's own fast-forward of an index and files, which refuses to overwrite
// anything, an untracked file included; if it does, Into goes back
// (compare-and-swap again) and nothing has changed. Untracked files the
// merge does not touch (a teamctl.yaml not yet committed) stay, as git
// merge leaves them. Both
// names are checked first (CheckBranch): they may come from state.json.
func Land(ctx context.Context, s LandSpec) (Landed, error) {
	l := Landed{Branch: s.Branch, Into: s.Into, Squash: s.Squash}
	for _, b := range []string{s.Branch, s.Into} {
		if err := CheckBranch(b); err != nil {
			return l, err
		}
	}
	if s.Branch == s.Into {
		return l, fmt.Errorf("branch %s cannot be merged into itself", s.Branch)
	}
	if err := CheckMergeTree(ctx); err != nil {
		return l, err
	}
	var err error
	if l.Old, err = revParse(ctx, s.Main, "refs/heads/"+s.Into+"^{commit}"); err != nil {
		return l, fmt.Errorf("merge into %s: %w", s.Into, err)
	}
	src := s.Source
	if src == "" {
		if src, err = revParse(ctx, s.Main, "refs/heads/"+s.Branch+"^{commit}"); err != nil {
			return l, fmt.Errorf("merge of %s: %w", s.Branch, err)
		}
	}
	l.New = l.Old
	if isAncestor(ctx, s.Main, src, l.Old) {
		l.UpToDate = true // nothing to land: a checkout of Into is not looked at
		return l, nil
	}
	checkout, err := cleanCheckoutOf(ctx, s.Main, s.Into, l.Old)
	if err != nil {
		return l, err
	}
	if l.Commits, err = CountCommits(ctx, s.Main, l.Old, src); err != nil {
		return l, err
	}
	tree, m, err := mergeTree(ctx, s.Main, l.Old, src)
	if err != nil {
		return l, err
	}
	if len(m.Conflicts) > 0 {
		return l, &ConflictError{Branch: s.Branch, Into: s.Into, Conflicts: m.Conflicts}
	}
	args := []string{"commit-tree", "--no-gpg-sign", tree, "-p", l.Old}
	if !s.Squash {
		args = append(args, "-p", src)
	}
	msg := s.Message
	if msg == "" {
		msg = landMessage(ctx, s, l, src)
	}
	commit, err := commitTree(ctx, s.Main, append(args, "-m", msg)...)
	if err != nil {
		return l, fmt.Errorf("the merge commit of %s into %s: %w", s.Branch, s.Into, err)
	}
	if s.Ready != nil {
		if err := s.Ready(ctx); err != nil {
			return l, err
		}
	}
	if err := swapRef(ctx, s.Main, "refs/heads/"+s.Into, commit, l.Old, "teamctl merge "+s.Branch); err != nil {
		return l, err
	}
	l.New = commit
	if checkout != "" {
		if err := forward(ctx, checkout, l.Old, l.New); err != nil {
			if uerr := swapRef(ctx, s.Main, "refs/heads/"+s.Into, l.Old, l.New, "teamctl merge: undone"); uerr != nil {
				return l, fmt.Errorf("%w; and putting %s back at %s: %w", err, s.Into, short(l.Old), uerr)
			}
			l.New = l.Old
			return l, &CheckoutError{Into: s.Into, Path: checkout, Err: err}
		}
		l.Checkout = checkout
	}
	return l, nil
}

// cleanCheckoutOf finds the checkout that has branch checked out ("" when
// none does), which must have no uncommitted change and nothing half-done,
// and be at head. Its untracked files are left to forward, which refuses
// to overwrite one.
func cleanCheckoutOf(ctx context.Context, main, branch, head string) (string, error) {
	list, err := List(ctx, main)
	if err != nil {
		return "", err
	}
	for _, e := range list {
		if e.Bare || e.Prunable || e.Detached || e.Branch != branch {
			continue
		}
		ce := &CheckoutError{Into: branch, Path: e.Path}
		if gitdir, err := checkoutGitDir(e.Path); err == nil {
			ce.Busy = inProgress(gitdir)
		}
		changes, err := Changes(ctx, e.Path)
		if err != nil {
			return "", err
		}
		ce.Files = changes.Changed
		if ce.Busy != "" || len(ce.Files) > 0 {
			return "", ce
		}
		if e.Head != head {
			return "", &MovedError{Into: branch, Was: head}
		}
		return e.Path, nil
	}
	return "", nil
}

// forward brings the clean checkout at path from commit old to new: git's
// two-tree read-tree, which updates the index and the files that differ and
// refuses (changing nothing) where a file is not as old has it.
func forward(ctx context.Context, path, old, new string) error {
	if _, err := git(ctx, path, "update-index", "-q", "--refresh"); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return err // 1 only says some file needs updating, which read-tree then refuses
		}
	}
	_, err := git(ctx, path, "read-tree", "-m", "-u", old, new)
	return err
}

// swapRef moves ref from old to new, only while it is at old.
func swapRef(ctx context.Context, main, ref, new, old, why string) error {
	if _, err := git(ctx, main, "update-ref", "-m", why, ref, new, old); err != nil {
		now, rerr := revParse(ctx, main, ref)
		var ge *GitError
		// Locked past git's own wait (core.filesRefLockTimeout): another is moving it.
		locked := errors.As(err, &ge) && strings.Contains(ge.Stderr, "cannot lock ref")
		if (rerr == nil && now != old) || locked {
			return &MovedError{Into: strings.TrimPrefix(ref, "refs/heads/"), Was: old}
		}
		return fmt.Errorf("move %s: %w", ref, err)
	}
	return nil
}

// isAncestor reports whether commit a is in b's history.
func isAncestor(ctx context.Context, dir, a, b string) bool {
	_, err := git(ctx, dir, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

// commitTree runs git commit-tree as the person (their user.name), or as
// teamctl when git knows no one.
func commitTree(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := git(ctx, dir, args...)
	var ge *GitError
	if errors.As(err, &ge) && noIdentity(ge.Stderr) {
		out, err = gitEnv(ctx, dir, fallbackIdentity, "", args...)
	}
	return strings.TrimSpace(out), err
}

// landMessage says what landed: the branch, and with Squash its commits.
func landMessage(ctx context.Context, s LandSpec, l Landed, src string) string {
	if !s.Squash {
		return fmt.Sprintf("Merge branch '%s' into %s (teamctl merge)\n", s.Branch, s.Into)
	}
	msg := fmt.Sprintf("%s: %d commit(s) squashed (teamctl merge --squash)\n", s.Branch, l.Commits)
	if out, err := git(ctx, s.Main, "log", "--format=* %s", src, "^"+l.Old, "--"); err == nil && out != "" {
		msg += "\n" + out
	}
	return msg
}

// CommitWork commits the uncommitted work w read (ReadWork) of a worktree on
// its branch (--wip): a commit of w.Tree on w.Head, made as the person, with
// message. It moves nothing: MoveBranch does.
func CommitWork(ctx context.Context, main string, w Work, message string) (string, error) {
	if w.Path == "" || w.Branch == "" || w.Files == 0 {
		return "", fmt.Errorf("nothing uncommitted on a branch to commit in %q", w.Path)
	}
	c, err := commitTree(ctx, main, "commit-tree", "--no-gpg-sign", w.Tree, "-p", w.Head, "-m", message)
	if err != nil {
		return "", fmt.Errorf("commit the work of %s: %w", w.Path, err)
	}
	return c, nil
}

// MoveBranch moves w's branch from w.Head to commit (compare-and-swap) and
// makes its worktree's index commit's tree, so that the files, which are
// not touched, are what is committed and not changes any more.
func MoveBranch(ctx context.Context, main string, w Work, commit, why string) error {
	if err := CheckBranch(w.Branch); err != nil {
		return err
	}
	if err := swapRef(ctx, main, "refs/heads/"+w.Branch, commit, w.Head, why); err != nil {
		return err
	}
	if _, err := git(ctx, w.Path, "read-tree", commit); err != nil {
		return fmt.Errorf("branch %s now has the work committed, but the index of %s was not updated (`git -C %q reset` does it): %w", w.Branch, w.Path, w.Path, err)
	}
	return nil
}
