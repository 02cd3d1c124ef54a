package team

import (
	"context"
	"fmt"
	"strings"
)

// FileDiff is the diff of one file member changed, as `teamctl diff MEMBER`
// shows it: path must be one of the files its changes list (by its name or,
// renamed, its old name), never a path taken as given and handed on.
func (t *Team) FileDiff(ctx context.Context, member, path string) (string, error) {
	ch, err := t.Diff(ctx, []string{member}, DiffPatch)
	if err != nil {
		return "", err
	}
	for _, w := range ch.Work {
		if w.Error != "" {
			return "", fmt.Errorf("%s's changes: %s", member, w.Error)
		}
		for _, f := range w.Files {
			if f.Path != path && (f.From == "" || f.From != path) {
				continue
			}
			if d := fileSection(w.Patch, f.From, f.Path); d != "" {
				return d, nil
			}
			return "", fmt.Errorf("%s's change of %s has no lines to show", member, path)
		}
	}
	return "", fmt.Errorf("%s is not one of %s's changed files", path, member)
}

// fileSection is the part of patch (git's unified diff of several files)
// that is the file at path (renamed from from, when not ""): from its `diff
// --git` line to the next one.
func fileSection(patch, from, path string) string {
	if from == "" {
		from = path
	}
	// As git quotes names by default, and as it writes them with
	// core.quotePath off (non-ASCII names as they are).
	start, want := -1, ""
	for _, w := range []string{"diff --git " + gitQuoted("a/"+from) + " " + gitQuoted("b/"+path), "diff --git a/" + from + " b/" + path} {
		if strings.HasPrefix(patch, w+"\n") {
			start, want = 0, w
		} else if i := strings.Index(patch, "\n"+w+"\n"); i >= 0 {
			start, want = i+1, w
		}
		if start >= 0 {
			break
		}
	}
	if start < 0 {
		return ""
	}
	rest := patch[start:]
	if end := strings.Index(rest[len(want):], "\ndiff --git "); end >= 0 {
		return rest[:len(want)+end+1]
	}
	return rest
}

// gitQuoted is a path as git's diff headers write it: as it is, or (with a
// quote, a backslash, a control or non-ASCII byte: core.quotePath's
// default) in double quotes with C escapes, bytes above 0x7f in octal.
func gitQuoted(p string) string {
	plain := true
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\v':
			b.WriteString(`\v`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 || c >= 0x7f {
				fmt.Fprintf(&b, `\%03o`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
