package worktrees

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// FileChange is one file that differs between two trees.
type FileChange struct {
	Path    string `json:"path"`
	From    string `json:"from,omitempty"` // its old name, when renamed or copied
	Status  string `json:"status"`         // added, modified, deleted, renamed, copied, type-changed
	Added   int    `json:"added"`          // lines; 0 for a binary file
	Deleted int    `json:"deleted"`
	Binary  bool   `json:"binary,omitempty"`
	// Submodule: a repository of its own, whose recorded commit changed;
	// what changed inside it is not followed.
	Submodule bool `json:"submodule,omitempty"`
}

// diffOptions make a diff that is the same whatever the user's git config
// says of colour, prefixes, relative paths, external diff programs and
// submodules: a diff of the bytes, renames found, submodules not followed.
var diffOptions = []string{"--no-color", "--no-ext-diff", "--no-textconv", "--find-renames", "--submodule=short", "--no-relative"}

// DiffFiles lists the files that differ from tree-ish from to tree-ish to,
// with lines added and deleted, in one git call (--raw and --numstat, -z so
// that any byte of a name is read as it is). dir is any checkout of the
// repository.
func DiffFiles(ctx context.Context, dir, from, to string) ([]FileChange, error) {
	args := append([]string{"diff", "--raw", "--numstat", "-z"}, diffOptions...)
	out, err := git(ctx, dir, append(args, from, to, "--")...)
	if err != nil {
		return nil, fmt.Errorf("the files that differ from %s to %s: %w", short(from), short(to), err)
	}
	return parseRawNumstat(out)
}

// parseRawNumstat reads `git diff --raw --numstat -z`: first one raw entry
// per file (":oldmode newmode oldsha newsha status\0path\0", two paths for a
// rename or copy), then as many numstat ones ("added\tdeleted\tpath\0", or
// "added\tdeleted\t\0old\0new\0"), in the same order.
func parseRawNumstat(out string) ([]FileChange, error) {
	tok := strings.Split(out, "\x00")
	var files []FileChange
	i := 0
	for i < len(tok) && strings.HasPrefix(tok[i], ":") {
		f := strings.Fields(tok[i])
		if len(f) != 5 || i+1 >= len(tok) {
			return nil, fmt.Errorf("git diff --raw: unexpected %q", tok[i])
		}
		fc := FileChange{Path: tok[i+1], Status: statusName(f[4][:1])}
		fc.Submodule = f[0] == ":160000" || f[1] == "160000"
		i += 2
		if s := f[4][0]; s == 'R' || s == 'C' {
			if i >= len(tok) {
				return nil, fmt.Errorf("git diff --raw: %q has no new name", tok[i-1])
			}
			fc.From, fc.Path = fc.Path, tok[i]
			i++
		}
		files = append(files, fc)
	}
	for n := range files {
		if i >= len(tok) {
			return nil, fmt.Errorf("git diff --numstat: %d entries for %d files", n, len(files))
		}
		f := strings.SplitN(tok[i], "\t", 3)
		if len(f) != 3 {
			return nil, fmt.Errorf("git diff --numstat: unexpected %q", tok[i])
		}
		i++
		if f[2] == "" {
			i += 2 // a rename: its two names follow, as read above
		}
		if f[0] == "-" && f[1] == "-" {
			files[n].Binary = true
			continue
		}
		var err1, err2 error
		files[n].Added, err1 = strconv.Atoi(f[0])
		files[n].Deleted, err2 = strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("git diff --numstat: unexpected %q", tok[i-1])
		}
	}
	return files, nil
}

func statusName(letter string) string {
	switch letter {
	case "A":
		return "added"
	case "D":
		return "deleted"
	case "R":
		return "renamed"
	case "C":
		return "copied"
	case "T":
		return "type-changed"
	case "U":
		return "unmerged"
	}
	return "modified"
}

// Patch is the patch from tree-ish from to tree-ish to, as `git diff` prints
// it without colour (names quoted as git quotes them, binary files said).
func Patch(ctx context.Context, dir, from, to string) (string, error) {
	args := append([]string{"diff", "--src-prefix=a/", "--dst-prefix=b/"}, diffOptions...)
	out, err := git(ctx, dir, append(args, from, to, "--")...)
	if err != nil {
		return "", fmt.Errorf("the patch from %s to %s: %w", short(from), short(to), err)
	}
	return out, nil
}
