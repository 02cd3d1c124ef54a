package stallwatch

import "unicode/utf8"

// Strip removes terminal escape sequences (CSI, OSC, DCS and the two-byte ones)
// and other control characters except newline and tab, and applies carriage
// returns the way a terminal would for a line that is redrawn in place: text
// written after a CR replaces what came before it on that line.
func Strip(b []byte) string {
	out := make([]byte, 0, len(b))
	lineStart := 0
	cr := false // a CR waits for text to overwrite the line with
	for i := 0; i < len(b); {
		c := b[i]
		if cr && c >= 0x20 && c != 0x7f {
			out, cr = out[:lineStart], false
		}
		switch {
		case c == 0x1b:
			i = skipEscape(b, i)
			continue
		case c == '\n':
			out = append(out, '\n')
			lineStart, cr = len(out), false
		case c == '\r':
			cr = true
		case c == '\t':
			out = append(out, c)
		case c < 0x20 || c == 0x7f:
			// other controls draw nothing
		case c >= 0x80:
			r, n := utf8.DecodeRune(b[i:])
			if r == 0x9b { // 8-bit CSI
				i = skipCSI(b, i+n)
				continue
			}
			out = append(out, b[i:i+n]...)
			i += n
			continue
		default:
			out = append(out, c)
		}
		i++
	}
	return string(out)
}

// skipEscape returns the index after the escape sequence starting at b[i] (ESC).
func skipEscape(b []byte, i int) int {
	if i+1 >= len(b) {
		return len(b)
	}
	switch b[i+1] {
	case '[':
		return skipCSI(b, i+2)
	case ']', 'P', '_', '^', 'X': // OSC, DCS, APC, PM, SOS: up to BEL or ST (ESC \)
		for j := i + 2; j < len(b); j++ {
			if b[j] == 0x07 {
				return j + 1
			}
			if b[j] == 0x1b && j+1 < len(b) && b[j+1] == '\\' {
				return j + 2
			}
		}
		return len(b)
	case '(', ')', '*', '+', '-', '.', '/', '#', '%', ' ': // charset and similar: one more byte
		if i+2 < len(b) {
			return i + 3
		}
		return len(b)
	default:
		return i + 2
	}
}

// skipCSI skips parameter and intermediate bytes up to the final byte.
func skipCSI(b []byte, j int) int {
	for ; j < len(b); j++ {
		if b[j] >= 0x40 && b[j] <= 0x7e {
			return j + 1
		}
	}
	return len(b)
}
