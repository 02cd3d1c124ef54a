package worktrees

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"os/exec"
	"strings"
)

// history is what one walk of a repository's commits tells of a set of tips
// (members' heads, base branches): their one best common ancestor, and for
// each commit after it which tips reach it. With it, which pairs of tips
// merge from that ancestor, whether one tip is an ancestor of another, and
// how many commits one has that another lacks are answered without a git
// command per pair: two commands for the whole team.
type history struct {
	// base is the best common ancestor of all tips; "" when they have none
	// or several (the walk then tells nothing: every question says "ask git").
	base string
	bit  map[string]int      // tip: its bit
	seen map[string][]uint64 // commit after base: the tips that reach it
	// meet[i] are the tips with which tip i shares a commit after base.
	meet [][]uint64
	// trees are the trees of the commits walked, and of base.
	trees map[string]string
	// changed is, when it was asked for (headChanges), what each of some
	// tips changed since base, by path: what a tip's work changed since
	// base is then made of it and of what its folder changes (compose),
	// without a diff of the work's tree after it is made.
	changed map[string]map[string]rawChange
}

// walk walks the commits of tips (commit ids) back to their best common
// ancestor, with `git merge-base --octopus` and `git rev-list
// --topo-order --boundary`, in the repository dir is in.
func walk(ctx context.Context, dir string, tips []string) (*history, error) {
	h := &history{bit: map[string]int{}, seen: map[string][]uint64{}, trees: map[string]string{}}
	var distinct []string
	for _, t := range tips {
		if _, ok := h.bit[t]; !ok {
			h.bit[t] = len(distinct)
			distinct = append(distinct, t)
		}
	}
	words := (len(distinct) + 63) / 64
	h.meet = make([][]uint64, len(distinct))
	for i := range h.meet {
		h.meet[i] = make([]uint64, words)
	}
	switch len(distinct) {
	case 0:
		return h, nil
	case 1:
		h.base = distinct[0]
		return h, nil
	}
	out, err := git(ctx, dir, append([]string{"merge-base", "--octopus"}, distinct...)...)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 && strings.TrimSpace(out) == "" {
		return h, nil // no common ancestor
	}
	if err != nil {
		return nil, fmt.Errorf("the history of %d commits: %w", len(distinct), err)
	}
	if bases := strings.Fields(out); len(bases) == 1 {
		h.base = bases[0]
	} else {
		return h, nil
	}
	out, err = git(ctx, dir, append(append([]string{"rev-list", "--topo-order", "--boundary", "--no-commit-header", "--format=%m %H %T %P"}, distinct...), "^"+h.base, "--")...)
	if err != nil {
		return nil, fmt.Errorf("the history of %d commits: %w", len(distinct), err)
	}
	for _, t := range distinct {
		if t != h.base {
			h.reach(t)[h.bit[t]/64] |= 1 << (h.bit[t] % 64)
		}
	}
	// "<mark> <commit> <tree> <parents…>": mark "-" for the base and the
	// other commits at the walk's edge, which only give their tree.
	var lines [][]string
	walked := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		h.trees[f[1]] = f[2]
		if f[0] != "-" {
			lines = append(lines, append(f[1:2], f[3:]...))
			walked[f[1]] = true
		}
	}
	// Children come before their parents: a commit's tips are all known
	// when its line is read. A parent not walked is the base or one of its
	// ancestors (a merge's older side).
	for _, f := range lines {
		mine := h.reach(f[0])
		for _, p := range f[1:] {
			if !walked[p] {
				continue
			}
			theirs := h.reach(p)
			for w := range mine {
				theirs[w] |= mine[w]
			}
		}
		if count(mine) > 1 {
			for _, i := range members(mine) {
				for w := range mine {
					h.meet[i][w] |= mine[w]
				}
			}
		}
	}
	return h, nil
}

// has reports whether the walk was of every one of tips (among others).
func (h *history) has(tips []string) bool {
	for _, t := range tips {
		if _, ok := h.bit[t]; !ok {
			return false
		}
	}
	return true
}

func (h *history) reach(c string) []uint64 {
	r, ok := h.seen[c]
	if !ok {
		r = make([]uint64, len(h.meet[0]))
		h.seen[c] = r
	}
	return r
}

// mergeBase is the one best common ancestor of tips a and b when it is the
// walk's base: the two share no commit after it (neither is the other's
// ancestor, no commit of one was merged into the other). false: ask git.
func (h *history) mergeBase(a, b string) (string, bool) {
	i, ok1 := h.bit[a]
	j, ok2 := h.bit[b]
	if h.base == "" || !ok1 || !ok2 {
		return "", false
	}
	if a == b {
		return "", false
	}
	return h.base, h.meet[i][j/64]&(1<<(j%64)) == 0
}

// isAncestor tells whether tip a is an ancestor of tip b (or b itself).
func (h *history) isAncestor(a, b string) (bool, bool) {
	j, ok := h.bit[b]
	if _, ok2 := h.bit[a]; h.base == "" || !ok || !ok2 {
		return false, false
	}
	if a == h.base || a == b {
		return true, true
	}
	return h.seen[a][j/64]&(1<<(j%64)) != 0, true
}

// only counts the commits tip a reaches and tip b does not.
func (h *history) only(a, b string) (int, bool) {
	i, ok1 := h.bit[a]
	j, ok2 := h.bit[b]
	if h.base == "" || !ok1 || !ok2 {
		return 0, false
	}
	n := 0
	for _, r := range h.seen {
		if r[i/64]&(1<<(i%64)) != 0 && r[j/64]&(1<<(j%64)) == 0 {
			n++
		}
	}
	return n, true
}

func count(set []uint64) int {
	n := 0
	for _, w := range set {
		n += bits.OnesCount64(w)
	}
	return n
}

func members(set []uint64) []int {
	var out []int
	for w, word := range set {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			out = append(out, w*64+b)
			word &^= 1 << b
		}
	}
	return out
}
