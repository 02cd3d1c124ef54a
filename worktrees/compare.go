package worktrees

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/teamctl/teamctl/internal/parallel"
)

// Compared is what merging one pair of sides would do.
type Compared struct {
	Pair  [2]int // indexes into the sides compared
	Merge Merge
	Err   error
	// Ran: git merge-tree was run for it; false when the walk showed the
	// two sides' changes cannot meet (Merge is then empty).
	Ran bool
	// Behind counts the commits of the second side's head that the first's
	// lacks (how far a base moved on since a member left it); -1 when the
	// walk could not tell (no one common base).
	Behind int
	// Landed says of each side that its work is all in its base already
	// (Side.BaseHead): merged, say, or none yet. Such a side is out of every
	// pair — its changes meet the others' when theirs land in the base, the
	// pair each has with it — so the pair is decided with nothing to say.
	Landed [2]bool
}

// CompareAll tells what merging each pair of sides (indexes into sides, all
// of the repository dir is in) would do: the same as TryMerge of each pair's
// commits, found with fewer git commands. One walk of the history finds the
// pairs that merge from the sides' common base, and one diff of every side
// against that base the paths each changed; a pair whose changes cannot meet
// — no path changed by both, none a folder of a path of the other (a file
// against a folder), no folder that one side took files out of and the
// other put files in (a folder renamed, which git follows) — merges with
// nothing to say, and git merge-tree runs only for the others, jobs at a
// time (at least one). A side's work becomes a commit (Side.commit) only
// when a merge needs it.
func CompareAll(ctx context.Context, sides []Side, pairs [][2]int, jobs int) ([]Compared, error) {
	return compareAll(ctx, sides, pairs, jobs, nil)
}

// compareAll is CompareAll, with the walk of the history walked already
// (nil: none), which it takes when it has every head.
func compareAll(ctx context.Context, sides []Side, pairs [][2]int, jobs int, walked *history) ([]Compared, error) {
	out := make([]Compared, len(pairs))
	decided := make([]bool, len(pairs))
	byRepo := map[string][]int{}
	for k, p := range pairs {
		out[k].Pair = p
		if a, b := sides[p[0]].Main, sides[p[1]].Main; filepath.Clean(a) != filepath.Clean(b) {
			return nil, fmt.Errorf("%s and %s are of two repositories (%s, %s): they do not merge", sides[p[0]].Name, sides[p[1]].Name, a, b)
		}
		m := filepath.Clean(sides[p[0]].Main)
		byRepo[m] = append(byRepo[m], k)
	}
	for dir, ks := range byRepo {
		if err := decide(ctx, dir, sides, pairs, ks, out, decided, walked); err != nil {
			return nil, err
		}
	}
	commits, err := commitsFor(ctx, sides, pairs, decided)
	if err != nil {
		return nil, err
	}
	var left []int // the pairs the walk could not decide: merged
	for k := range pairs {
		if !decided[k] {
			left = append(left, k)
		}
	}
	parallel.Each(len(left), jobs, func(i int) {
		k := left[i]
		p := pairs[k]
		out[k].Merge, out[k].Err = TryMerge(ctx, sides[p[0]].Main, commits[p[0]], commits[p[1]])
		out[k].Ran = true
	})
	return out, nil
}

// decide decides the pairs ks (all of the repository dir) that the walk
// shows merge with nothing to say: out[k] empty, decided[k] true.
func decide(ctx context.Context, dir string, sides []Side, pairs [][2]int, ks []int, out []Compared, decided []bool, walked *history) error {
	var heads []string
	for _, k := range ks {
		for _, i := range pairs[k] {
			heads = append(heads, sides[i].Head)
			if sides[i].BaseHead != "" {
				heads = append(heads, sides[i].BaseHead)
			}
		}
	}
	h := walked
	if h == nil || !h.has(heads) {
		var err error
		if h, err = walk(ctx, dir, heads); err != nil {
			return err
		}
	}
	var quick []int // pairs merging from h.base
	for _, k := range ks {
		a, b := sides[pairs[k][0]], sides[pairs[k][1]]
		out[k].Behind = -1
		if n, ok := h.only(b.Head, a.Head); ok {
			out[k].Behind = n
		}
		out[k].Landed = [2]bool{a.landed(h), b.landed(h)}
		if out[k].Landed[0] || out[k].Landed[1] {
			out[k].Merge, decided[k] = Merge{Both: []string{}, Conflicts: []Conflict{}}, true
			continue
		}
		// One side no more than an ancestor of the other: nothing to merge.
		if anc, ok := h.isAncestor(b.Head, a.Head); ok && anc && b.Tree == "" {
			out[k].Merge, decided[k] = Merge{Both: []string{}, Conflicts: []Conflict{}}, true
			continue
		}
		if anc, ok := h.isAncestor(a.Head, b.Head); ok && anc && a.Tree == "" {
			out[k].Merge, decided[k] = Merge{Both: []string{}, Conflicts: []Conflict{}}, true
			continue
		}
		if _, ok := h.mergeBase(a.Head, b.Head); ok {
			quick = append(quick, k)
		}
	}
	if len(quick) == 0 {
		return nil
	}
	changed, err := changedSince(ctx, dir, h, sides, pairs, quick)
	if err != nil {
		return err
	}
	for _, k := range quick {
		if !changed[pairs[k][0]].meets(changed[pairs[k][1]]) {
			out[k].Merge, decided[k] = Merge{Both: []string{}, Conflicts: []Conflict{}}, true
		}
	}
	return nil
}

// Side is one side of a merge: a member's work (its head and the tree of its
// files, uncommitted ones included), or a branch (its head alone).
type Side struct {
	Name string
	Main string // the main checkout of its repository
	Head string // the commit its history ends at
	// Tree is the tree of its files when they are not Head's (uncommitted
	// work): "" when they are.
	Tree string
	// Path is the worktree's folder, named in the commit of its work.
	Path string
	// edits are the paths of Tree that are not Head's, when Tree was made
	// from Head's (folderEdits); nil when Tree is "" or was made otherwise.
	edits map[string]folderEdit
	// BaseHead is, for a member's work, the commit its base branch is at now
	// ("" for none, and for a branch's side): when its work is all there,
	// it is out of every pair (Compared.Landed).
	BaseHead string
}

// landed reports whether s is a member's work that is all in its base
// already: no uncommitted files, and its head in the base's history (the
// walk h tells; when it cannot, s is not taken for landed).
func (s Side) landed(h *history) bool {
	if s.Tree != "" || s.BaseHead == "" || s.Head == "" {
		return false
	}
	anc, ok := h.isAncestor(s.Head, s.BaseHead)
	return ok && anc
}

// WorkSide is the side of w, a member's work.
func WorkSide(name, main string, w Work) Side {
	s := Side{Name: name, Main: main, Head: w.Head, Path: w.Path}
	if w.Files > 0 {
		s.Tree, s.edits = w.Tree, w.edits
	}
	return s
}

// Key names a side's work, and where its base is: the same key, the same
// work, landed or not alike (a base that moved may now hold it all).
func (s Side) Key() string {
	if s.BaseHead == "" {
		return s.Head + " " + s.Tree
	}
	return s.Head + " " + s.Tree + " " + s.BaseHead
}

// commitsFor makes the commits of the sides in the pairs not decided:
// Head itself, or a commit of Tree on Head (workCommits: one git command
// for the sides of a repository).
func commitsFor(ctx context.Context, sides []Side, pairs [][2]int, decided []bool) (map[int]string, error) {
	commits := map[int]string{}
	byRepo := map[string][]int{}
	for k, p := range pairs {
		if decided[k] {
			continue
		}
		for _, i := range p {
			if _, ok := commits[i]; ok {
				continue
			}
			commits[i] = sides[i].Head
			if sides[i].Tree != "" {
				m := filepath.Clean(sides[i].Main)
				byRepo[m] = append(byRepo[m], i)
			}
		}
	}
	for dir, is := range byRepo {
		batch := make([]Side, len(is))
		for n, i := range is {
			batch[n] = sides[i]
		}
		ids, err := workCommits(ctx, dir, batch)
		if err != nil {
			return nil, err
		}
		for n, i := range is {
			commits[i] = ids[n]
		}
	}
	return commits, nil
}

// pathChanges are the paths one side changed since a base, as the merge sees
// them: every path, the folders above them, and of the folders those above
// the paths it took out and put in (without rename detection: a rename is a
// path taken out and one put in).
type pathChanges struct {
	paths   map[string]bool
	folders map[string]bool // folders above a changed path
	out     map[string]bool // folders above a path taken out ("" when one was at the top)
	in      map[string]bool // folders above a path put in, the top ("") among them
}

// meets reports whether the changes of two sides can meet in a merge: git
// merge-tree could have something to say only then.
func (c pathChanges) meets(o pathChanges) bool {
	for p := range c.paths {
		if o.paths[p] || o.folders[p] {
			return true // both changed it, or it is a file where o has a folder
		}
	}
	for p := range o.paths {
		if c.folders[p] {
			return true
		}
	}
	for f := range c.out {
		if o.in[f] {
			return true // c may have renamed the folder o put a file in
		}
	}
	for f := range o.out {
		if c.in[f] {
			return true
		}
	}
	return false
}

func (c *pathChanges) add(status, p string) {
	c.paths[p] = true
	dir := path.Dir(p)
	if dir == "." {
		dir = ""
	}
	switch status[0] {
	case 'D':
		c.out[dir] = true
	case 'A':
		c.in[dir] = true
	}
	for d := dir; d != ""; {
		c.folders[d] = true
		if status[0] == 'A' {
			c.in[d] = true
		}
		if status[0] == 'D' {
			c.out[d] = true
		}
		if d = path.Dir(d); d == "." {
			d = ""
		}
	}
	if status[0] == 'A' {
		c.in[""] = true // a folder renamed to the top takes what is put in anywhere
	}
}

// changedSince diffs every side of the quick pairs against base: from what
// the walk knows its head changed and what its folder changes (compose), or
// with one `git diff-tree --stdin` of the others' trees.
func changedSince(ctx context.Context, dir string, h *history, sides []Side, pairs [][2]int, quick []int) (map[int]pathChanges, error) {
	need := map[int]bool{}
	for _, k := range quick {
		need[pairs[k][0]], need[pairs[k][1]] = true, true
	}
	res := map[int]pathChanges{}
	for i := range need {
		if c, ok := h.compose(sides[i]); ok {
			res[i] = c
			delete(need, i)
		}
	}
	if len(need) == 0 {
		return res, nil
	}
	// The trees: a side's own, else its head's; and the base's. The walk
	// has them, but when every side is the base (it walked nothing).
	treeOf := map[int]string{}
	baseTree, ok := h.trees[h.base]
	if !ok {
		if !isObjectID(h.base) {
			return nil, fmt.Errorf("%q is no commit id", h.base)
		}
		out, err := git(ctx, dir, "rev-parse", h.base+"^{tree}")
		if err != nil {
			return nil, fmt.Errorf("the tree of %s: %w", short(h.base), err)
		}
		baseTree = strings.TrimSpace(out)
	}
	for i := range need {
		switch t, ok := h.trees[sides[i].Head]; {
		case sides[i].Tree != "":
			treeOf[i] = sides[i].Tree
		case sides[i].Head == h.base:
			treeOf[i] = baseTree
		case ok:
			treeOf[i] = t
		default:
			return nil, fmt.Errorf("the walk of the history did not reach %s", short(sides[i].Head))
		}
	}
	var trees []string
	seen := map[string]bool{baseTree: true}
	for i := range need {
		if t := treeOf[i]; !seen[t] {
			seen[t] = true
			trees = append(trees, t)
		}
	}
	byTree, err := diffTrees(ctx, dir, baseTree, trees)
	if err != nil {
		return nil, err
	}
	for i := range need {
		c, ok := byTree[treeOf[i]]
		if !ok && treeOf[i] != baseTree {
			return nil, fmt.Errorf("git diff-tree said nothing of tree %s", treeOf[i])
		}
		if !ok {
			c = newPathChanges()
		}
		res[i] = c
	}
	return res, nil
}

// diffTrees diffs each of trees against base: one `git diff-tree --stdin`
// of them all (in parallel, on two cores, they took longer: a command's
// start costs about what a diff does).
func diffTrees(ctx context.Context, dir, base string, trees []string) (map[string]pathChanges, error) {
	if len(trees) == 0 {
		return map[string]pathChanges{}, nil
	}
	var stdin strings.Builder
	for _, t := range trees {
		fmt.Fprintf(&stdin, "%s %s\n", base, t)
	}
	diff, err := gitEnv(ctx, dir, nil, stdin.String(), "diff-tree", "--stdin", "-r", "-z", "--no-renames", "--name-status")
	if err != nil {
		return nil, fmt.Errorf("what %d sides changed: %w", len(trees), err)
	}
	return parseDiffTrees(diff)
}

func newPathChanges() pathChanges {
	return pathChanges{paths: map[string]bool{}, folders: map[string]bool{}, out: map[string]bool{}, in: map[string]bool{}}
}

// parseDiffTrees reads `git diff-tree --stdin -r -z --name-status` of lines
// of two trees: for each, "<tree> <tree>\n" (always, even when they do not
// differ), then "<status>\0<path>\0" per path. A status is an upper-case
// letter, a tree id lower-case hex: they are not mistaken for each other.
func parseDiffTrees(out string) (map[string]pathChanges, error) {
	res := map[string]pathChanges{}
	var cur pathChanges
	for len(out) > 0 {
		if c := out[0]; (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') {
			line, rest, ok := strings.Cut(out, "\n")
			_, to, ok2 := strings.Cut(line, " ")
			if !ok || !ok2 {
				return nil, fmt.Errorf("git diff-tree: unexpected %.80q", out)
			}
			cur = newPathChanges()
			res[to] = cur
			out = rest
			continue
		}
		status, rest, ok := strings.Cut(out, "\x00")
		p, rest2, ok2 := strings.Cut(rest, "\x00")
		if !ok || !ok2 || status == "" || cur.paths == nil {
			return nil, fmt.Errorf("git diff-tree: unexpected %.80q", out)
		}
		cur.add(status, p)
		out = rest2
	}
	return res, nil
}

// isObjectID: 40 (SHA-1) or 64 (SHA-256) lower-case hex digits, as git
// prints an object's name.
func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
