package layouts

import (
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// worktree reads a member's `worktree:`: true, false, or {branch, base}.
func (w *walker) worktree(n *yaml.Node, path string) *Worktree {
	if n == nil || isNull(n) {
		return nil
	}
	var on bool
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" && n.Decode(&on) == nil {
		if on {
			return &Worktree{}
		}
		return nil
	}
	if n.Kind != yaml.MappingNode {
		// Say the mapping form too: `worktree: fix/auth` is a common first try.
		hint := ""
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && badBranch(n.Value) == "" {
			hint = fmt.Sprintf("; for that branch: {branch: %s}", n.Value)
		}
		w.add(n, path, "must be true, false, or {branch: NAME, base: REF} (a worktree on its own branch; either key may be left out)%s", hint)
		return nil
	}
	f := w.fields(n, path, worktreeKeys)
	wt := &Worktree{}
	if v := f.get("branch"); v != nil {
		if s, ok := w.text(v, join(path, "branch")); ok {
			if why := badBranch(s); why != "" {
				w.add(v, join(path, "branch"), "invalid branch name %q: %s", s, why)
			} else {
				wt.Branch = s
			}
		}
	}
	if v := f.get("base"); v != nil {
		if s, ok := w.text(v, join(path, "base")); ok {
			// A leading "-" would reach git as an option.
			if s == "" || strings.HasPrefix(s, "-") || strings.ContainsFunc(s, isSpaceOrControl) {
				w.add(v, join(path, "base"), "invalid base %q: must be a branch, tag or commit, without spaces and not starting with -", s)
			} else {
				wt.Base = s
			}
		}
	}
	return wt
}

func isSpaceOrControl(r rune) bool { return r <= ' ' || r == 0x7f }

var branchChars = regexp.MustCompile(`^[A-Za-z0-9._/+-]+$`)

// badBranch says why s is not a branch name git accepts (a safe subset of
// git check-ref-format's rules), or "" when it is one.
func badBranch(s string) string {
	switch {
	case !branchChars.MatchString(s):
		return "use letters, digits and . _ / + -"
	case strings.HasPrefix(s, "-"), strings.HasPrefix(s, "/"), strings.HasSuffix(s, "/"), strings.HasSuffix(s, "."):
		return `must not start with "-" or "/", or end with "/" or "."`
	case strings.Contains(s, ".."), strings.Contains(s, "//"), strings.Contains(s, "/."):
		return `must not contain "..", "//" or "/."`
	case strings.HasSuffix(s, ".lock"), s == "HEAD":
		return `must not end in ".lock" or be "HEAD"`
	case strings.HasPrefix(s, "."):
		return `must not start with "."`
	}
	return ""
}
