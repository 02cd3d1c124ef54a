// Package textsafe makes text that teamctl did not write — teammates'
// messages, hook details, task subjects, names and lines from panes and from
// Claude Code's files — safe to print on a terminal, and cuts it short
// without breaking a character. Every character a terminal acts on instead of
// showing, or shows as nothing, is written as a visible escape, the way Go's
// %q writes it: an agent's "\x1b[2J" shows as those six characters instead of
// clearing the screen, "\x1b]0;…\x07" does not set the title, and a word
// with a zero-width space in it shows the "\u200b".
//
// What is escaped: the C0 controls (ESC, BEL, CR, backspace, …; newline and
// tab too, except where Lines keeps them), DEL, the C1 controls U+0080–U+009F
// (a terminal may take U+009B as CSI), bytes that are not UTF-8 (a raw 0x9B
// is CSI to an 8-bit terminal), the line and paragraph separators
// U+2028/U+2029, every format character (Unicode category Cf: the
// bidirectional controls U+061C, U+200E/F, U+202A–E, U+2066–9, which reorder
// what is shown so that a line reads as something it is not; the invisible
// U+200B–D, U+2060–4, U+FEFF, U+180E, U+00AD; the tag characters
// U+E0000–U+E007F, which can carry a whole hidden text), the Hangul fillers
// U+115F, U+1160, U+3164 and U+FFA0 (letters drawn as blank), and a
// variation selector that follows another one (a run of them can carry hidden
// bytes; one after a character is how Unicode picks its form, as in ❤️).
// One exception keeps emoji whole: a zero-width joiner (U+200D) that UAX #29
// keeps inside one grapheme cluster with a symbol after it — an emoji ZWJ
// sequence such as 👨‍👩‍👧 or 🏳️‍🌈, where Unicode joins the two only when an
// emoji comes before (rule GB11) — is left as it is; any other is escaped.
// Everything else — any other Unicode, backslashes included — is left as it
// is, so ordinary text reads as written.
//
// Cutting (Cut, Short, Tail) is on grapheme cluster boundaries (UAX #29, by
// github.com/clipperhouse/uax29, the segmenter charmbracelet/x/ansi's
// Truncate uses for the tables and the cockpit), so an emoji sequence, a flag
// or a letter with its accents is kept whole or dropped whole.
//
// JSON output needs none of this: encoding/json escapes control characters
// itself, and --json keeps every value exact.
package textsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/graphemes"
)

// Visible returns s with every character a terminal would act on written as
// an escape (\x1b, \n, \t, \u202e, …): for one-line fields such as a table's
// cells, where a newline or a tab would break the layout too.
func Visible(s string) string { return escape(s, false) }

// Lines is Visible for text of several lines, such as an error message:
// newlines and tabs are kept, everything else is escaped as by Visible.
func Lines(s string) string { return escape(s, true) }

const zwj = '\u200d'

func escape(s string, keepLines bool) string {
	if plain(s, keepLines) {
		return s // the common case: nothing to escape, no copy
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	prev := rune(-1) // the character written last as it is; -1 at the start or after an escape
	g := graphemes.FromString(s)
	for g.Next() {
		c := g.Value()
		for j := 0; j < len(c); {
			r, size := utf8.DecodeRuneInString(c[j:])
			keep := !unsafe(r, size, keepLines)
			switch {
			case r == zwj:
				keep = joinsEmoji(c[j+size:])
			case variationSelector(r):
				keep = prev >= 0 && !variationSelector(prev)
			}
			if keep {
				b.WriteString(c[j : j+size])
				prev = r
			} else {
				writeEscape(&b, r, size, c[j])
				prev = -1
			}
			j += size
		}
	}
	return b.String()
}

// plain reports whether s has nothing to escape, without looking at graphemes.
// A joiner or a variation selector needs the careful look.
func plain(s string, keepLines bool) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unsafe(r, size, keepLines) || variationSelector(r) {
			return false
		}
		i += size
	}
	return true
}

// joinsEmoji reports whether a zero-width joiner followed by rest, the rest
// of its grapheme cluster, joins two emoji: the character after it is in its
// cluster and is a symbol (the category of every emoji; U+1F000–U+1FAFF also
// when Go's tables do not know it yet, a newer emoji).
func joinsEmoji(rest string) bool {
	if rest == "" {
		return false // the cluster ends with it: nothing joined
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return unicode.Is(unicode.So, r) || r >= 0x1f000 && r <= 0x1faff
}

func variationSelector(r rune) bool {
	return r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef
}

// writeEscape writes the escape of r (size bytes of the input, whose first
// byte is first) as Go's %q would.
func writeEscape(b *strings.Builder, r rune, size int, first byte) {
	switch {
	case r == utf8.RuneError && size <= 1:
		fmt.Fprintf(b, `\x%02x`, first)
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
		fmt.Fprintf(b, `\x%02x`, r)
	case r <= 0xffff:
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		fmt.Fprintf(b, `\U%08x`, r)
	}
}

// unsafe reports whether the rune r (size bytes of the input) must be
// escaped wherever it stands (escape adds the joiner's and the variation
// selectors' rules, which depend on their neighbours).
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
	case unicode.Is(unicode.Cf, r):
		return true // format characters, the bidirectional controls among them
	case r == 0x115f || r == 0x1160 || r == 0x3164 || r == 0xffa0:
		return true // Hangul fillers
	case r >= 0xe0000 && r <= 0xe007f:
		return true // the tag block, unassigned ones too
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
// space), cut as Cut does: how a message or a tool input is quoted in an
// event.
func Short(s string, n int) string {
	return Cut(strings.Join(strings.Fields(s), " "), n)
}

// Cut is s cut to at most n bytes with "…" when longer, at the end of a
// grapheme cluster: an emoji sequence or a letter with its accents is kept
// whole or left out whole, never split (a split ZWJ sequence shows a
// different emoji; a split flag, a different flag).
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := 0
	g := graphemes.FromString(s)
	for g.Next() && g.End() <= n {
		cut = g.End()
	}
	return s[:cut] + "…"
}

// Tail is the end of s, at most n bytes of it, starting at a grapheme
// cluster: what is kept of a line too long to keep whole.
func Tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	g := graphemes.FromString(s)
	for g.Next() {
		if len(s)-g.Start() <= n {
			return s[g.Start():]
		}
	}
	return ""
}
