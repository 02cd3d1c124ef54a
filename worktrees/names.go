package worktrees

import (
	"fmt"
	"regexp"
	"strings"
)

var branchChars = regexp.MustCompile(`^[A-Za-z0-9._/+@-]+$`)

// CheckBranch refuses a branch name outside a safe subset of what git
// check-ref-format accepts. A name read from state.json (which anyone, an
// agent's Bash tool included, can edit) is checked before it reaches git: a
// leading "-" would be an option, ".." a range, a control character a forged
// line in what teamctl prints.
func CheckBranch(name string) error {
	why := ""
	switch {
	case !branchChars.MatchString(name):
		why = "use letters, digits and . _ / + @ -"
	case strings.HasPrefix(name, "-"), strings.HasPrefix(name, "/"), strings.HasPrefix(name, "."),
		strings.HasSuffix(name, "/"), strings.HasSuffix(name, "."):
		why = `must not start with "-", "/" or ".", or end with "/" or "."`
	case strings.Contains(name, ".."), strings.Contains(name, "//"), strings.Contains(name, "/."), strings.Contains(name, "@{"):
		why = `must not contain "..", "//", "/." or "@{"`
	case strings.HasSuffix(name, ".lock"), strings.Contains(name, ".lock/"), name == "HEAD", name == "@":
		why = `must not end a part in ".lock" or be "HEAD" or "@"`
	}
	if why != "" {
		return fmt.Errorf("branch name %q: %s", name, why)
	}
	return nil
}

var refPart = regexp.MustCompile(`^[A-Za-z0-9_@][A-Za-z0-9._@-]{0,99}$`)

// checkRefPart refuses what cannot be one part of a ref name (between two
// slashes) as teamctl makes them: a team, a member, a time.
func checkRefPart(what, s string) error {
	if !refPart.MatchString(s) || strings.Contains(s, "..") || strings.HasSuffix(s, ".") || strings.HasSuffix(s, ".lock") || s == "@" {
		return fmt.Errorf("%s %q cannot be part of a ref name: use letters, digits and . _ @ -, not starting with . or -", what, s)
	}
	return nil
}

// validRev reports whether s (a base read from state.json) can reach git as
// a revision: not empty, not an option, no space or control character.
func validRev(s string) bool {
	return s != "" && !strings.HasPrefix(s, "-") && !strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f })
}
