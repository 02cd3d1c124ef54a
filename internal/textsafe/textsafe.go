// Package textsafe makes text that teamctl did not write — teammates'
// messages, hook details, task subjects, names and lines from panes and from
// Claude Code's files — safe to print on a terminal. Every character a
// terminal acts on instead of showing is written as a visible escape, the way
// Go's %q writes it: an agent's "\x1b[2J" shows as those six characters
// instead of clearing the screen, "\x1b]0;…\x07" does not set the title.
//
// What is escaped: the C0 controls (ESC, BEL, CR, backspace, …; newline and
// tab too, except where Lines keeps them), DEL, the C1 controls U+0080–U+009F
// (a terminal may take U+009B as CSI), bytes that are not UTF-8 (a raw 0x9B
// is CSI to an 8-bit terminal), the line and paragraph separators
// U+2028/U+2029, and the Unicode bidirectional controls (U+061C, U+200E,
// U+200F, U+202A–U+202E, U+2066–U+2069), which reorder what is shown so that
// a line reads as something it is not. Everything else — any other Unicode,
// backslashes included — is left as it is, so ordinary text reads as written.
//
// JSON output needs none of this: encoding/json escapes control characters
// itself, and --json keeps every value exact.
package textsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Visible returns s with every character a terminal would act on written as
// an escape (\x1b, \n, \t, \u202e, …): for one-line fields such as a table's
// cells, where a newline or a tab would break the layout too.
func Visible(s string) string { return escape(s, false) }

// Lines is Visible for text of several lines, such as an error message:
// newlines and tabs are kept, everything else is escaped as by Visible.
func Lines(s string) string { return escape(s, true) }

func escape(s string, keepLines bool) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unsafe(r, size, keepLines) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s // the common case: nothing to escape, no copy
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unsafe(r, size, keepLines) {
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\a':
			b.WriteString(`\a`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\v':
			b.WriteString(`\v`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// unsafe reports whether the rune r (size bytes of the input) must be escaped.
func unsafe(r rune, size int, keepLines bool) bool {
	switch {
	case r == utf8.RuneError && size <= 1:
		return true // not UTF-8
	case r == '\n' || r == '\t':
		return !keepLines
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0x80:
		return false
	case r <= 0x9f:
		return true // C1
	case r == 0x2028 || r == 0x2029:
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
		return true // bidirectional controls
	}
	return false
}

// Writer is an io.Writer that passes what is written through Lines, for
// progress messages that name members and panes. Each Write should be whole
// lines (as fmt.Fprintf of a line is): a character split across two writes
// would be escaped as two invalid bytes.
type Writer struct{ W io.Writer }

// Write writes Lines(p) and reports len(p) on success.
func (w Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.W, Lines(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Short is s on one line (runs of white space, newlines included, become one
// space), cut to at most n bytes (at a rune boundary) with "…" when longer:
// how a message or a tool input is quoted in an event.
func Short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
