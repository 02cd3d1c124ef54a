package textsafe

import (
	"bytes"
	"strings"
	"testing"
)

func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, ❯ and é":            "plain text, ❯ and é",
		`back\slash stays`:               `back\slash stays`,
		"\x1b[2J\x1b]0;pwned\x07":        `\x1b[2J\x1b]0;pwned\a`,
		"a\nb\tc\rd":                     `a\nb\tc\rd`,
		"nul\x00 del\x7f":                `nul\x00 del\x7f`,
		"c1 \u009b31m":                   `c1 \u009b31m`,
		"raw byte \x9b31m":               `raw byte \x9b31m`,
		"bidi \u202eevil\u202c \u2066x":  `bidi \u202eevil\u202c \u2066x`,
		"separators \u2028 \u2029":       `separators \u2028 \u2029`,
		"":                               "",
		"\x1b":                           `\x1b`,
		"zero width joiner \u200d stays": "zero width joiner \u200d stays",
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
