package worktrees

import (
	"context"
	"fmt"
	"strings"
)

// What a member's work changed since the base, without a diff of its tree:
// the diff of its head against the base (headChanges, while the folders are
// read), and the files its folder changes on its head (folderEdit, known
// when its tree was made from its head's): a path's state at the base is the
// head diff's old side when the head changed it, else the head's; its state
// in the work is the folder's when the folder changed it, else the head's.
// That was one `git diff-tree` after the trees were made and written, on one
// processor while the other waited: 7 ms of bench/radar's 72.

// rawChange is what a head changed at a path since the base: git's status
// letter and the path's entry at the base (mode "" when it had none).
type rawChange struct {
	status byte
	old    treeEntry
}

// folderEdit is a path a folder changes on its head: its entry in the head
// and in the folder (mode "" when there is none; a folder is none).
type folderEdit struct{ head, work treeEntry }

// headChanges diffs each of heads (walked by h) against h's base with one
// `git diff-tree --stdin --raw`: by head, what it changed, by path.
func headChanges(ctx context.Context, dir string, h *history, heads []string) (map[string]map[string]rawChange, error) {
	baseTree, ok := h.trees[h.base]
	if h.base == "" || !ok {
		return nil, fmt.Errorf("no tree of the walk's base")
	}
	var stdin strings.Builder
	seen := map[string]bool{baseTree: true}
	for _, c := range heads {
		if t, ok := h.trees[c]; ok && !seen[t] {
			seen[t] = true
			fmt.Fprintf(&stdin, "%s %s\n", baseTree, t)
		}
	}
	byTree := map[string]map[string]rawChange{baseTree: {}}
	if stdin.Len() > 0 {
		out, err := gitEnv(ctx, dir, nil, stdin.String(), "diff-tree", "--stdin", "-r", "-z", "--no-renames", "--raw")
		if err != nil {
			return nil, fmt.Errorf("what %d heads changed: %w", len(seen)-1, err)
		}
		if err := parseRawDiffs(out, byTree); err != nil {
			return nil, err
		}
	}
	res := map[string]map[string]rawChange{}
	for _, c := range heads {
		if t, ok := h.trees[c]; ok {
			if d, ok := byTree[t]; ok {
				res[c] = d
			}
		} else if c == h.base {
			res[c] = byTree[baseTree]
		}
	}
	return res, nil
}

// parseRawDiffs reads `git diff-tree --stdin -r -z --raw` of lines of two
// trees into byTree, by the second tree: for each, "<tree> <tree>\n", then
// ":<mode> <mode> <id> <id> <status>\0<path>\0" per path.
func parseRawDiffs(out string, byTree map[string]map[string]rawChange) error {
	var cur map[string]rawChange
	for len(out) > 0 {
		if out[0] != ':' {
			line, rest, ok := strings.Cut(out, "\n")
			_, to, ok2 := strings.Cut(line, " ")
			if !ok || !ok2 {
				return fmt.Errorf("git diff-tree: unexpected %.80q", out)
			}
			cur = map[string]rawChange{}
			byTree[to] = cur
			out = rest
			continue
		}
		meta, rest, ok := strings.Cut(out[1:], "\x00")
		p, rest2, ok2 := strings.Cut(rest, "\x00")
		f := strings.Fields(meta)
		if !ok || !ok2 || len(f) != 5 || f[4] == "" || cur == nil {
			return fmt.Errorf("git diff-tree: unexpected %.80q", out)
		}
		c := rawChange{status: f[4][0]}
		if f[0] != modeNone {
			c.old = treeEntry{mode: f[0], id: f[2]}
		}
		cur[p] = c
		out = rest2
	}
	return nil
}

// compose is what side s changed since h's base, as diffTrees would say of
// its tree, from what its head changed (h.changed) and what its folder
// changes on it (Side.edits); false when h or s does not tell.
func (h *history) compose(s Side) (pathChanges, bool) {
	head, ok := h.changed[s.Head]
	if !ok || (s.Tree != "" && s.edits == nil) {
		return pathChanges{}, false
	}
	c := newPathChanges()
	for p, ch := range head {
		if _, ok := s.edits[p]; !ok {
			c.add(string(ch.status), p)
		}
	}
	for p, e := range s.edits {
		base := e.head
		if ch, ok := head[p]; ok {
			base = ch.old
		}
		switch {
		case base == e.work:
		case base.mode == "":
			c.add("A", p)
		case e.work.mode == "":
			c.add("D", p)
		default:
			c.add("M", p) // or a change of type: only additions and deletions tell
		}
	}
	return c, true
}
