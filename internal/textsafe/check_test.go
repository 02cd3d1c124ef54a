package textsafe

import (
	"errors"
	"testing"
)

// TestCheckText: a message is text — tab, newline, CR, any Unicode pass; the
// first control character (C0, DEL, C1, a byte that is not UTF-8) is named
// with its line and column, so an escape sequence (shift-tab "\x1b[Z"), ^C
// or ^U never reaches a pane as keys.
func TestCheckText(t *testing.T) {
	for _, ok := range []string{"", "plain", "two\nlines\r\nand\ta tab", "émoji 👨\u200d👩\u200d👧 ❤️ zero\u200bwidth"} {
		if err := CheckText(ok); err != nil {
			t.Errorf("CheckText(%q) = %v, want nil", ok, err)
		}
	}
	for _, c := range []struct {
		in   string
		want ControlError
	}{
		{"\x1b[Z", ControlError{Char: `\x1b`, Name: "ESC", Line: 1, Column: 1, Offset: 0}},
		{"stop\x03", ControlError{Char: `\x03`, Name: "^C", Line: 1, Column: 5, Offset: 4}},
		{"one\nté\x15x", ControlError{Char: `\x15`, Name: "^U", Line: 2, Column: 3, Offset: 7}},
		{"bell\a", ControlError{Char: `\a`, Name: "^G", Line: 1, Column: 5, Offset: 4}},
		{"nul\x00", ControlError{Char: `\x00`, Name: "^@", Line: 1, Column: 4, Offset: 3}},
		{"del\x7f", ControlError{Char: `\x7f`, Name: "DEL", Line: 1, Column: 4, Offset: 3}},
		{"csi\u009b2J", ControlError{Char: `\u009b`, Name: "C1 control", Line: 1, Column: 4, Offset: 3}},
		{"raw\x9b2J", ControlError{Char: `\x9b`, Name: "not UTF-8", Line: 1, Column: 4, Offset: 3}},
	} {
		err := CheckText(c.in)
		var ce *ControlError
		if !errors.As(err, &ce) || *ce != c.want {
			t.Errorf("CheckText(%q) = %#v, want %#v", c.in, err, c.want)
		}
	}
	if got := CheckText("a\x1b[Z").Error(); got != `\x1b (ESC) at line 1, column 2` {
		t.Errorf("the error says %q", got)
	}
}
