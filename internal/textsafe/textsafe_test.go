package textsafe

import (
	"bytes"
	"strings"
	"testing"
)

func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, ❯ and é":           "plain text, ❯ and é",
		`back\slash stays`:              `back\slash stays`,
		"\x1b[2J\x1b]0;pwned\x07":       `\x1b[2J\x1b]0;pwned\a`,
		"a\nb\tc\rd":                    `a\nb\tc\rd`,
		"nul\x00 del\x7f":               `nul\x00 del\x7f`,
		"c1 \u009b31m":                  `c1 \u009b31m`,
		"raw byte \x9b31m":              `raw byte \x9b31m`,
		"bidi \u202eevil\u202c \u2066x": `bidi \u202eevil\u202c \u2066x`,
		"separators \u2028 \u2029":      `separators \u2028 \u2029`,
		"":                              "",
		"\x1b":                          `\x1b`,
	} {
		got := Visible(in)
		if got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
		if strings.ContainsAny(got, "\x1b\x07\n\r\t\x00\x7f\u009b\u202e") {
			t.Errorf("Visible(%q) = %q still holds a control character", in, got)
		}
	}
}

// TestVisibleShowsFormatCharacters: characters a terminal draws as nothing
// (zero-width spaces and joiners, BOM, word joiner, invisible operators, tag
// characters that can spell a hidden text, Hangul fillers, a run of variation
// selectors) are escaped; a joiner inside an emoji ZWJ sequence, and one
// variation selector after a character, are the emoji's and stay.
func TestVisibleShowsFormatCharacters(t *testing.T) {
	const family = "👨\u200d👩\u200d👧"
	for _, c := range []struct{ in, want string }{
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"non\u200cjoiner", `non\u200cjoiner`},
		{"le\u200dad", `le\u200dad`},
		{"\ufeffbom", `\ufeffbom`},
		{"word\u2060joiner \u2061\u2062\u2063\u2064", `word\u2060joiner \u2061\u2062\u2063\u2064`},
		{"mongolian\u180evowel", `mongolian\u180evowel`},
		{"soft\u00adhyphen", `soft\u00adhyphen`},
		{"ok\U000e0001\U000e0069\U000e0067\U000e007f", `ok\U000e0001\U000e0069\U000e0067\U000e007f`},
		{"unassigned tag \U000e0000", `unassigned tag \U000e0000`},
		{"filler\u3164 \u115f\u1160 \uffa0", `filler\u3164 \u115f\u1160 \uffa0`},
		// Emoji stay whole: ZWJ sequences, with skin tones and VS16 inside.
		{"family " + family + " home", "family " + family + " home"},
		{"🏳\ufe0f\u200d🌈 👩🏽\u200d💻 ❤\ufe0f\u200d🔥", "🏳\ufe0f\u200d🌈 👩🏽\u200d💻 ❤\ufe0f\u200d🔥"},
		{"❤\ufe0f 1\ufe0f\u20e3", "❤\ufe0f 1\ufe0f\u20e3"},
		// A joiner anywhere else is shown.
		{"👨\u200d", `👨\u200d`},
		{"\u200d👩", `\u200d👩`},
		{"a\u200d👩", `a\u200d👩`},
		{"👨\u200da", `👨\u200da`},
		{"👨\u200d\u200d👩", `👨\u200d\u200d👩`},
		{"👨 \u200d👩", `👨 \u200d👩`},
		// A variation selector after another (hidden bytes) or after nothing.
		{"😀\ufe00\ufe01\ufe02", `😀` + "\ufe00" + `\ufe01\ufe02`},
		{"a\U000e0100\U000e0101", "a\U000e0100" + `\U000e0101`},
		{"\ufe0fstart", `\ufe0fstart`},
		{"\x1b\ufe0f", `\x1b\ufe0f`},
	} {
		got := Visible(c.in)
		if got != c.want {
			t.Errorf("Visible(%q) = %q, want %q", c.in, got, c.want)
		}
		if Lines(c.in) != c.want {
			t.Errorf("Lines(%q) = %q, want %q", c.in, Lines(c.in), c.want)
		}
	}
}

// TestCutKeepsGraphemesWhole: Cut, Short and Tail cut between grapheme
// clusters, so an emoji sequence, a flag or a letter and its accent is kept
// or dropped whole, with "…" where Cut and Short cut.
func TestCutKeepsGraphemesWhole(t *testing.T) {
	const family = "👨\u200d👩\u200d👧" // 18 bytes
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"ab" + family + "cd", 8, "ab…"},
		{"ab" + family + "cd", 19, "ab…"},
		{"ab" + family + "cd", 20, "ab" + family + "…"},
		{"ab" + family + "cd", 22, "ab" + family + "cd"},
		{"🇫🇷🇩🇪", 6, "…"},
		{"🇫🇷🇩🇪", 12, "🇫🇷…"},
		{"cafe\u0301!", 5, "caf…"},
		{"plain text", 5, "plain…"},
		{"", 3, ""},
	} {
		if got := Cut(c.in, c.n); got != c.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
	if got := Short("one\n\ttwo "+family+" three", 12); got != "one two …" {
		t.Errorf("Short = %q", got)
	}
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"ab" + family + "cd", 3, "cd"},
		{"ab" + family + "cd", 19, "cd"},
		{"ab" + family + "cd", 20, family + "cd"},
		{"🇫🇷🇩🇪", 6, ""},
		{"short", 10, "short"},
	} {
		if got := Tail(c.in, c.n); got != c.want {
			t.Errorf("Tail(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestLinesKeepsNewlinesAndTabs(t *testing.T) {
	if got, want := Lines("one\n\ttwo\x1b[2J\r\n"), "one\n\ttwo\\x1b[2J\\r\n"; got != want {
		t.Errorf("Lines = %q, want %q", got, want)
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := Writer{W: &b}
	n, err := w.Write([]byte("member \x1b]0;x\x07 did not stop\n"))
	if err != nil || n != len("member \x1b]0;x\x07 did not stop\n") {
		t.Fatalf("Write: %d %v", n, err)
	}
	if got := b.String(); got != "member \\x1b]0;x\\a did not stop\n" {
		t.Errorf("wrote %q", got)
	}
}

func BenchmarkVisiblePlain(b *testing.B) {
	s := strings.Repeat("an ordinary line of output ❯ ", 10)
	for b.Loop() {
		Visible(s)
	}
}
