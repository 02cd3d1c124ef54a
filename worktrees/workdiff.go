package worktrees

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/teamctl/teamctl/internal/parallel"
)

// WorkDiff is what a member's worktree changed since its base: its commits
// and its uncommitted files.
type WorkDiff struct {
	Work    Work
	Base    *Base
	From    string // where its branch left the base (their merge base)
	Commits int    // its commits since
	Files   []FileChange
	Patch   string // with patch only
	Err     error  // why it could not be read; the rest as far as it was
}

// DiffWorktrees reads what each of members' worktrees (all of the
// repository whose main checkout is main) changed since its base, jobs at a
// time: `teamctl diff`. Where a branch left its base and how many commits it
// has since come from one walk of the history for them all; each folder is
// diffed as it is (diffFolder), with no tree made of it.
func DiffWorktrees(ctx context.Context, main string, members []Member, patch bool, jobs int) []WorkDiff {
	out := make([]WorkDiff, len(members))
	if !filepath.IsAbs(main) {
		for i := range out {
			out[i].Err = fmt.Errorf("the main checkout %q is not at an absolute path", main)
		}
		return out
	}
	specs := make([]WorkSpec, len(members))
	for i, m := range members {
		specs[i] = WorkSpec{Path: m.Path, Branch: m.Branch}
	}
	v := look(ctx, main, members, specs, false)
	works, errs := readWorks(ctx, main, specs, jobs, v.list, v.listErr, false)
	v.wait()
	parallel.Each(len(members), jobs, func(i int) {
		out[i] = diffMember(ctx, main, members[i], works[i], errs[i], v, patch)
	})
	return out
}

func diffMember(ctx context.Context, main string, m Member, w Work, err error, v *view, patch bool) WorkDiff {
	d := WorkDiff{Work: w, Files: []FileChange{}}
	if m.Path != "" && !filepath.IsAbs(m.Path) {
		err = fmt.Errorf("the worktree recorded for %s (%q of %q) is not at an absolute path", m.Name, m.Path, main)
	}
	if d.Err = firstErr(err, v.baseErrs[m.Base]); d.Err != nil {
		return d
	}
	d.Base = v.bases[m.Base]
	d.From, d.Commits, d.Err = forkOf(ctx, main, v.walked, d.Base.Commit, w.Head)
	if d.Err != nil {
		d.Err = fmt.Errorf("its work and its base %s: %w", d.Base.Name, d.Err)
		return d
	}
	d.Files, d.Patch, d.Err = diffFolder(ctx, main, w, d.From, patch)
	return d
}

// forkOf is where head left base (their merge base) and head's commits since,
// from the walk when it can tell, else from git.
func forkOf(ctx context.Context, main string, h *history, base, head string) (string, int, error) {
	if h != nil {
		n, ok := h.only(head, base)
		if anc, ok2 := h.isAncestor(base, head); ok && ok2 && anc {
			return base, n, nil
		}
		if mb, ok2 := h.mergeBase(base, head); ok && ok2 {
			return mb, n, nil
		}
	}
	from, err := MergeBase(ctx, main, base, head)
	if err != nil {
		return "", 0, err
	}
	n, err := CountCommits(ctx, main, from, head)
	return from, n, err
}

// diffFolder lists (and with patch, shows) what w holds against tree-ish
// from: the files of its folder as they are — `git diff from` there, through
// a copy of its index in which its untracked files are added "intent to
// add" (so that they are new files, and a file moved without git mv a
// rename, as in a tree of the folder); the folder's index and files are not
// touched. A worktree gone is its branch's commits.
func diffFolder(ctx context.Context, main string, w Work, from string, patch bool) ([]FileChange, string, error) {
	if w.Gone || w.Path == "" {
		files, err := DiffFiles(ctx, main, from, w.Head)
		if err != nil || !patch {
			return files, "", err
		}
		p, err := Patch(ctx, main, from, w.Head)
		return files, p, err
	}
	var env []string
	if len(w.untracked) > 0 {
		tmp, err := os.MkdirTemp("", "teamctl-diff-")
		if err != nil {
			return nil, "", err
		}
		defer os.RemoveAll(tmp)
		index := filepath.Join(tmp, "index")
		if _, err := copyIndex(w.Path, index); err != nil {
			return nil, "", err
		}
		env = []string{"GIT_INDEX_FILE=" + index, "GIT_LITERAL_PATHSPECS=1", "GIT_GLOB_PATHSPECS=0", "GIT_NOGLOB_PATHSPECS=0", "GIT_ICASE_PATHSPECS=0"}
		if _, err := gitEnv(ctx, w.Path, env, strings.Join(w.untracked, "\x00"), "add", "--intent-to-add", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			return nil, "", fmt.Errorf("the new files of %s: %w", w.Path, err)
		}
	}
	args := append([]string{"diff", "--raw", "--numstat", "-z"}, diffOptions...)
	out, err := gitEnv(ctx, w.Path, env, "", append(args, from, "--")...)
	if err != nil {
		return nil, "", fmt.Errorf("the files of %s that differ from %s: %w", w.Path, short(from), err)
	}
	files, err := parseRawNumstat(out)
	if err != nil || !patch {
		return files, "", err
	}
	args = append([]string{"diff", "--src-prefix=a/", "--dst-prefix=b/"}, diffOptions...)
	p, err := gitEnv(ctx, w.Path, env, "", append(args, from, "--")...)
	if err != nil {
		return files, "", fmt.Errorf("the patch of %s from %s: %w", w.Path, short(from), err)
	}
	return files, p, nil
}

// DiffCheckout reads the uncommitted changes of the checkout dir is in (one
// members share, no worktree of theirs), against its HEAD, as diffFolder
// does.
func DiffCheckout(ctx context.Context, dir string, patch bool) (Work, []FileChange, string, error) {
	w, err := readCheckout(ctx, dir, false)
	if err != nil {
		return w, nil, "", err
	}
	files, p, err := diffFolder(ctx, w.Path, w, w.Head, patch)
	return w, files, p, err
}
