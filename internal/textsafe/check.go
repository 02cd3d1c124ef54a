package textsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ControlError is the first character of a text that a terminal, or a
// program reading keys from one, would act on instead of taking as text.
type ControlError struct {
	Char         string // as Visible writes it: \x1b, \x03, \a, \u009b
	Name         string // ESC, ^C, DEL, C1 control, not UTF-8
	Line, Column int    // from 1; the column counts characters
	Offset       int    // its byte offset, from 0
}

func (e *ControlError) Error() string {
	return fmt.Sprintf("%s (%s) at line %d, column %d", e.Char, e.Name, e.Line, e.Column)
}

// CheckText returns a *ControlError for the first control character of s:
// a C0 control other than tab, newline and carriage return, DEL, a C1
// control, or a byte that is not UTF-8 (0x9b alone is CSI to an 8-bit
// terminal). ESC starts every escape sequence, so none passes. What passes is
// text; format characters among it are shown escaped where teamctl prints it.
func CheckText(s string) error {
	line, col := 1, 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		col++
		if name := controlName(r, size); name != "" {
			var b strings.Builder
			writeEscape(&b, r, size, s[i])
			return &ControlError{Char: b.String(), Name: name, Line: line, Column: col, Offset: i}
		}
		if r == '\n' {
			line, col = line+1, 0
		}
		i += size
	}
	return nil
}

// controlName names r (size bytes of the input) when CheckText refuses it,
// and is "" when it is text.
func controlName(r rune, size int) string {
	switch {
	case r == utf8.RuneError && size <= 1:
		return "not UTF-8"
	case r == '\t' || r == '\n' || r == '\r':
		return ""
	case r == 0x1b:
		return "ESC"
	case r < 0x20:
		return "^" + string(rune(r+0x40))
	case r == 0x7f:
		return "DEL"
	case r >= 0x80 && r <= 0x9f:
		return "C1 control"
	}
	return ""
}
