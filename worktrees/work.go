package worktrees

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/teamctl/teamctl/internal/parallel"
)

// Work is what a checkout holds now: the commit it has checked out and, as a
// tree, every file of its folder that is not ignored (staged, unstaged,
// untracked), read without touching its index or files.
type Work struct {
	Path    string    `json:"path,omitempty"`   // the folder; "" when only its branch is left
	Branch  string    `json:"branch,omitempty"` // the branch checked out; "" when HEAD is detached
	Head    string    `json:"head"`             // the commit checked out (the branch's head when the folder is gone)
	Tree    string    `json:"tree"`             // the tree of its files
	Files   int       `json:"uncommitted"`      // files whose uncommitted state Tree holds
	LeftOut []LeftOut `json:"left_out,omitempty"`
	// Gone: the folder is gone, or git no longer lists it as a worktree;
	// only its branch's commits are left.
	Gone bool `json:"gone,omitempty"`
	// Busy is an operation git stopped half-way in the folder: "rebase",
	// "merge", "cherry-pick", "revert"; "" when none.
	Busy string `json:"in_progress,omitempty"`
	// untracked are its untracked files not left out, for a diff of the
	// folder (diffFolder) to take as new.
	untracked []string
	// plan is how Tree was made, when it was made from HEAD's: written with
	// other folders' trees by finishTrees.
	plan *treePlan
	// edits are, when Tree was made from HEAD's, the paths where they differ
	// (Side.edits).
	edits map[string]folderEdit
}

// ReadWork reads the work of the worktree at path, a linked worktree of the
// repository whose main checkout is main, made on branch. When git lists no
// worktree at path (its folder deleted by hand) the work is the branch's head
// (Gone); path "" asks for that alone. The worktree may be on another branch
// than branch, or on none (Branch says). branch is checked (CheckBranch)
// before git sees it, as it comes from a file anyone can edit.
func ReadWork(ctx context.Context, main, path, branch string) (Work, error) {
	trees := newTreeMaker(main)
	w, err := readWork(ctx, main, path, branch, func() (Entry, error) { return Linked(ctx, main, path) }, trees)
	if ferr := finishTrees(ctx, trees, []*Work{&w})[0]; err == nil {
		err = ferr
	}
	return w, err
}

// WorkSpec is a worktree to read, as a team records it: its folder and the
// branch it was made on.
type WorkSpec struct{ Path, Branch string }

// ReadWorks is ReadWork of each worktree of specs, all of the repository
// whose main checkout is main, with one `git worktree list` for them all
// and jobs (at least one) read at a time. errs[i] is specs[i]'s error.
func ReadWorks(ctx context.Context, main string, specs []WorkSpec, jobs int) (works []Work, errs []error) {
	list, listErr := listMain(ctx, main)
	return readWorks(ctx, main, specs, jobs, list, listErr, true)
}

// listMain is List of the repository whose main checkout is main.
func listMain(ctx context.Context, main string) ([]Entry, error) {
	if fi, err := os.Lstat(filepath.Join(main, ".git")); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w of %s, which is no repository's main checkout", ErrNotWorktree, main)
	}
	return List(ctx, main)
}

// readWorks is ReadWorks on what List said (or why it could not); without
// tree, the trees of the folders are not made (Work.Tree "").
func readWorks(ctx context.Context, main string, specs []WorkSpec, jobs int, list []Entry, listErr error, tree bool) (works []Work, errs []error) {
	works, errs = make([]Work, len(specs)), make([]error, len(specs))
	var trees *treeMaker
	if tree {
		trees = newTreeMaker(main)
	}
	parallel.Each(len(specs), jobs, func(i int) {
		s := specs[i]
		works[i], errs[i] = readWork(ctx, main, s.Path, s.Branch, func() (Entry, error) {
			if listErr != nil {
				return Entry{}, fmt.Errorf("%s: %w", s.Path, listErr)
			}
			return linkedIn(list, main, s.Path)
		}, trees)
	})
	if trees == nil {
		return works, errs
	}
	read := make([]*Work, len(works))
	for i := range works {
		read[i] = &works[i]
	}
	for i, err := range finishTrees(ctx, trees, read) {
		if errs[i] == nil {
			errs[i] = err
		}
	}
	return works, errs
}

// readWork is ReadWork, with linked finding git's entry for path, and
// without trees no tree of the folder made.
func readWork(ctx context.Context, main, path, branch string, linked func() (Entry, error), trees *treeMaker) (Work, error) {
	if branch != "" {
		if err := CheckBranch(branch); err != nil {
			return Work{}, err
		}
	}
	if path != "" {
		e, err := linked()
		switch {
		case err == nil:
			return readLinked(ctx, e, branch, trees)
		case !errors.Is(err, ErrNotWorktree):
			return Work{}, err
		}
	}
	if branch == "" {
		return Work{}, fmt.Errorf("the work of %s: git lists no worktree there and no branch is recorded", path)
	}
	head, err := revParse(ctx, main, "refs/heads/"+branch+"^{commit}")
	if err != nil {
		return Work{}, fmt.Errorf("the work on branch %s: the worktree is gone and so is the branch: %w", branch, err)
	}
	tree, err := revParse(ctx, main, head+"^{tree}")
	if err != nil {
		return Work{}, err
	}
	return Work{Branch: branch, Head: head, Tree: tree, Gone: true}, nil
}

func readLinked(ctx context.Context, e Entry, branch string, trees *treeMaker) (Work, error) {
	w := Work{Path: e.Path, Branch: e.Branch, Head: e.Head}
	if strings.Trim(w.Head, "0") == "" {
		// HEAD names a branch that no longer exists (update-ref -d).
		return w, fmt.Errorf("worktree %s has no commit checked out: its branch %s is gone (`git -C %q checkout -b %s` there makes it again)", e.Path, e.Branch, e.Path, e.Branch)
	}
	return w, readFolder(ctx, &w, trees)
}

// ReadCheckout reads the work of the checkout dir is in (a main checkout,
// or a worktree teamctl does not know): its HEAD and uncommitted files.
func ReadCheckout(ctx context.Context, dir string) (Work, error) {
	return readCheckout(ctx, dir, true)
}

func readCheckout(ctx context.Context, dir string, withTree bool) (Work, error) {
	repo, err := FindRepo(ctx, dir)
	if err != nil {
		return Work{}, err
	}
	w := Work{Path: repo.Top}
	if w.Head, err = revParse(ctx, repo.Top, "HEAD^{commit}"); err != nil {
		return w, fmt.Errorf("the checkout %s has no commit yet: %w", repo.Top, err)
	}
	if out, err := git(ctx, repo.Top, "symbolic-ref", "--quiet", "--short", "HEAD"); err == nil {
		w.Branch = strings.TrimSpace(out)
	}
	if !withTree {
		return w, readFolder(ctx, &w, nil)
	}
	trees := newTreeMaker(repo.Top)
	err = readFolder(ctx, &w, trees)
	if ferr := finishTrees(ctx, trees, []*Work{&w})[0]; err == nil {
		err = ferr
	}
	return w, err
}

// readFolder fills in the tree of w's folder (with trees), what it leaves
// out, and what git is in the middle of there. A tree made from HEAD's
// (planTree, treeMaker.make) is written by finishTrees, with other
// folders'.
func readFolder(ctx context.Context, w *Work, trees *treeMaker) error {
	changes, deleted, entries, err := changes(ctx, w.Path)
	if err != nil {
		return err
	}
	listed := append(changes.Changed, changes.Untracked...)
	w.LeftOut = LeftOutOf(w.Path, listed)
	w.Files = len(listed) - len(w.LeftOut)
	w.untracked = toAdd(changes.Untracked, nil, w.LeftOut)
	switch {
	case trees == nil:
	case w.Files > 0:
		add := toAdd(listed, deleted, w.LeftOut)
		if w.plan, err = planTree(ctx, trees, w.Path, w.Head, entries, w.LeftOut, add); err == nil {
			w.Tree, w.edits, err = trees.make(ctx, w.plan)
		}
		if err != nil {
			// Left to add and write-tree (errNoPlan), or git said what it
			// should not: add says why if it fails too.
			w.plan, w.edits = nil, nil
			w.Tree, err = stateTreeOf(ctx, w.Path, w.Head, add)
		}
	default:
		w.Tree, err = revParse(ctx, w.Path, w.Head+"^{tree}")
	}
	if err != nil {
		return fmt.Errorf("the files of %s: %w", w.Path, err)
	}
	if gitdir, err := checkoutGitDir(w.Path); err == nil {
		w.Busy = inProgress(gitdir)
	}
	return nil
}

// finishTrees writes the trees trees made of works' folders (Work.plan);
// when it cannot, each of those folders has its tree made through a copy of
// its index as before, which says why if that fails too. err[i] is
// works[i]'s.
func finishTrees(ctx context.Context, trees *treeMaker, works []*Work) []error {
	errs := make([]error, len(works))
	err := trees.finish(ctx)
	for i, w := range works {
		if w.plan == nil {
			continue
		}
		if err != nil {
			w.edits = nil
			if w.Tree, errs[i] = stateTreeOf(ctx, w.Path, w.Head, w.plan.fallback); errs[i] != nil {
				errs[i] = fmt.Errorf("the files of %s: %w", w.Path, errs[i])
			}
		}
		w.plan = nil
	}
	return errs
}

// toAdd are the files of listed (what status said) that git add takes into
// a copy of the index to make the folder's tree: all but those left out, and
// but those in neither the index nor the folder (a staged deletion, which
// the copy has already; git add refuses a name that matches nothing). The
// same tree as `add --all` of the whole folder, without git looking at every
// file again.
func toAdd(listed []string, deleted map[string]bool, leftOut []LeftOut) []string {
	out := make([]string, 0, len(listed))
	skip := map[string]bool{}
	for _, l := range leftOut {
		skip[l.Path] = true
	}
	for _, f := range listed {
		if !skip[f] && !deleted[f] {
			out = append(out, f)
		}
	}
	return out
}

// inProgress names what git stopped in the middle of in a checkout whose git
// folder is gitdir, from the files it leaves there.
func inProgress(gitdir string) string {
	for _, c := range []struct{ file, what string }{
		{"rebase-merge", "rebase"}, {"rebase-apply", "rebase"}, {"MERGE_HEAD", "merge"},
		{"CHERRY_PICK_HEAD", "cherry-pick"}, {"REVERT_HEAD", "revert"},
	} {
		if _, err := os.Lstat(filepath.Join(gitdir, c.file)); err == nil {
			return c.what
		}
	}
	return ""
}

// Commit is a commit of w's files on top of its HEAD, for what git does only
// with commits (merge-tree): w.Head itself when nothing is uncommitted. dir
// is any checkout of the repository.
func (w Work) Commit(ctx context.Context, dir string) (string, error) {
	if w.Files == 0 {
		return w.Head, nil
	}
	return workCommit(ctx, dir, w.Head, w.Tree, w.Path)
}

// workCommit is the commit of tree on head that Work.Commit makes of the
// work of the folder at path (workCommits, for one).
func workCommit(ctx context.Context, dir, head, tree, path string) (string, error) {
	ids, err := workCommits(ctx, dir, []Side{{Head: head, Tree: tree, Path: path}})
	if err != nil {
		return "", err
	}
	return ids[0], nil
}

// workCommits makes the commit of each side's Tree on its Head, all with one
// git command (writeObjects) however many members' work a comparison needs
// as commits, where commit-tree takes one each. The commits are signed by
// teamctl at a fixed time, so that the same work is the same commit however
// often it is compared (no pile of objects), and no user.name is needed. No
// ref names them; git gc drops them in time.
func workCommits(ctx context.Context, dir string, sides []Side) ([]string, error) {
	bodies := make([]string, len(sides))
	ids := make([]string, len(sides))
	for i, s := range sides {
		if !isObjectID(s.Head) || !isObjectID(s.Tree) || len(s.Head) != len(sides[0].Head) {
			return nil, fmt.Errorf("a commit of the work of %s: %q on %q: no object ids", s.Path, s.Tree, s.Head)
		}
		bodies[i] = fmt.Sprintf("tree %s\nparent %s\nauthor teamctl <teamctl@localhost> 946684800 +0000\ncommitter teamctl <teamctl@localhost> 946684800 +0000\n\n"+
			"teamctl: the uncommitted work of %s, to compare it (no ref names this commit)\n", s.Tree, s.Head, strconv.Quote(s.Path))
		ids[i] = objectID(hashOf(s.Head)(), "commit", bodies[i])
	}
	if len(sides) > 0 {
		objs := make([]object, len(bodies))
		for i, b := range bodies {
			objs[i] = object{objCommit, b}
		}
		if err := writeObjects(ctx, dir, objs, hashOf(sides[0].Head)); err != nil {
			return nil, fmt.Errorf("commits of the work of %d worktrees: %w", len(sides), err)
		}
	}
	return ids, nil
}

// Base is what a member's work is compared with: where its branch started.
type Base struct {
	Name   string `json:"name"`             // as recorded; else the main checkout's branch (or commit)
	Commit string `json:"commit"`           // where Name is now
	Branch bool   `json:"branch,omitempty"` // Name is a branch, which moves (a commit or a tag does not)
	// Guessed says why Name is not the recorded base ("" when it is).
	Guessed string `json:"guessed,omitempty"`
}

// FindBase finds the base recorded for a member (state.json's, which anyone
// can edit: a name git could take as an option is refused) in the repository
// whose main checkout is main. With none recorded, or one that is gone, it is
// the branch the main checkout is on, which `up` would have taken, and
// Guessed says so.
func FindBase(ctx context.Context, main, recorded string) (Base, error) {
	why := "none was recorded"
	switch {
	case recorded != "" && !validRev(recorded):
		why = fmt.Sprintf("the recorded %q is no name of a commit", recorded)
	case recorded != "":
		if c, err := revParse(ctx, main, recorded+"^{commit}"); err == nil {
			return Base{Name: recorded, Commit: c, Branch: BranchExists(ctx, main, recorded)}, nil
		}
		why = fmt.Sprintf("the recorded %s is gone", recorded)
	}
	name, err := baseName(ctx, main, "")
	if err != nil {
		return Base{}, err
	}
	c, err := revParse(ctx, main, name+"^{commit}")
	if err != nil {
		return Base{}, err
	}
	return Base{Name: name, Commit: c, Branch: name != c, Guessed: why + "; the main checkout's " + name + " is taken"}, nil
}

// ErrUnrelated: two commits have no history in common.
var ErrUnrelated = errors.New("no history in common")

// MergeBase is the best common ancestor of commits a and b.
func MergeBase(ctx context.Context, dir, a, b string) (string, error) {
	out, err := git(ctx, dir, "merge-base", a, b)
	var ge *GitError
	if errors.As(err, &ge) && ge.Stderr == "" && strings.TrimSpace(out) == "" {
		return "", fmt.Errorf("%s and %s: %w", short(a), short(b), ErrUnrelated)
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// CountCommits counts the commits of head that from does not have.
func CountCommits(ctx context.Context, dir, from, head string) (int, error) {
	out, err := git(ctx, dir, "rev-list", "--count", head, "^"+from, "--")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(out))
}

// short is a commit's name as people read it.
func short(c string) string {
	if len(c) > 10 {
		return c[:10]
	}
	return c
}
