package web

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/teamctl/teamctl/internal/textsafe"
)

// span is a run of a screen's line in one style, as the page draws it: the
// text set as text, the style only as our own class names and colours we
// computed (never a string from the screen).
type span struct {
	Text  string `json:"t"`
	Class string `json:"c,omitempty"`  // of b d i u v (bold, dim, italic, underline, inverse), fN and gN (a colour of the 16)
	FG    string `json:"fg,omitempty"` // "#rrggbb", a colour of the 256 or 24-bit
	BG    string `json:"bg,omitempty"`
}

// sgr is the style Select Graphic Rendition sequences set.
type sgr struct {
	bold, dim, italic, underline, inverse bool
	fg, bg                                string // "f1"/"g4" or "#rrggbb", "" the default
}

func (s sgr) span(text string) span {
	var cls []string
	for _, f := range []struct {
		on bool
		c  string
	}{{s.bold, "b"}, {s.dim, "d"}, {s.italic, "i"}, {s.underline, "u"}, {s.inverse, "v"}} {
		if f.on {
			cls = append(cls, f.c)
		}
	}
	out := span{Text: textsafe.Visible(text)}
	for _, c := range []struct {
		v   string
		hex *string
	}{{s.fg, &out.FG}, {s.bg, &out.BG}} {
		if strings.HasPrefix(c.v, "#") {
			*c.hex = c.v
		} else if c.v != "" {
			cls = append(cls, c.v)
		}
	}
	out.Class = strings.Join(cls, " ")
	return out
}

// spans are line's runs of text by style: SGR sequences (ESC [ … m) make
// the style; every other escape sequence goes; what is left of a control
// character is made visible (textsafe.Visible), never acting.
func spans(line string) []span {
	out := []span{} // an empty line is [], never null
	var st sgr
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			out = append(out, st.span(text.String()))
			text.Reset()
		}
	}
	for i := 0; i < len(line); {
		if line[i] != 0x1b {
			text.WriteByte(line[i])
			i++
			continue
		}
		if i+1 < len(line) && line[i+1] == '[' {
			j := i + 2
			for j < len(line) && (line[j] < 0x40 || line[j] > 0x7e) {
				j++
			}
			if j == len(line) {
				i = j // cut short: dropped
				continue
			}
			if line[j] == 'm' {
				flush()
				st = st.apply(line[i+2 : j])
			}
			i = j + 1
			continue
		}
		i += 2 // ESC and the one byte of a two-byte sequence: dropped
	}
	flush()
	return out
}

// apply is s after the SGR parameters params ("1;31", "38;5;208",
// "48;2;10;20;30"); unknown ones change nothing.
func (s sgr) apply(params string) sgr {
	if params == "" {
		return sgr{}
	}
	ps := strings.FieldsFunc(params, func(r rune) bool { return r == ';' || r == ':' })
	num := func(k int) (int, bool) {
		if k >= len(ps) {
			return 0, false
		}
		n, err := strconv.Atoi(ps[k])
		return n, err == nil && n >= 0 && n <= 255
	}
	for k := 0; k < len(ps); k++ {
		n, err := strconv.Atoi(ps[k])
		if err != nil {
			continue
		}
		switch {
		case n == 0:
			s = sgr{}
		case n == 1:
			s.bold = true
		case n == 2:
			s.dim = true
		case n == 3:
			s.italic = true
		case n == 4:
			s.underline = true
		case n == 7:
			s.inverse = true
		case n == 22:
			s.bold, s.dim = false, false
		case n == 23:
			s.italic = false
		case n == 24:
			s.underline = false
		case n == 27:
			s.inverse = false
		case n >= 30 && n <= 37:
			s.fg = "f" + strconv.Itoa(n-30)
		case n >= 90 && n <= 97:
			s.fg = "f" + strconv.Itoa(n-90+8)
		case n == 39:
			s.fg = ""
		case n >= 40 && n <= 47:
			s.bg = "g" + strconv.Itoa(n-40)
		case n >= 100 && n <= 107:
			s.bg = "g" + strconv.Itoa(n-100+8)
		case n == 49:
			s.bg = ""
		case n == 38 || n == 48:
			c, used := extended(ps[k+1:], num, k+1)
			if n == 38 {
				s.fg = c
			} else {
				s.bg = strings.Replace(c, "f", "g", 1) // a class of the 16 as a background's
			}
			k += used
		}
	}
	return s
}

// extended is the colour of a 38 or 48 SGR (5;N of the 256, 2;R;G;B), and
// how many parameters it took.
func extended(rest []string, num func(int) (int, bool), at int) (string, int) {
	if len(rest) == 0 {
		return "", 0
	}
	switch rest[0] {
	case "5":
		n, ok := num(at + 1)
		if !ok {
			return "", 1
		}
		return color256(n), 2
	case "2":
		r, ok1 := num(at + 1)
		g, ok2 := num(at + 2)
		b, ok3 := num(at + 3)
		if !ok1 || !ok2 || !ok3 {
			return "", min(len(rest), 4)
		}
		return fmt.Sprintf("#%02x%02x%02x", r, g, b), 4
	}
	return "", 1
}

// color256 is colour n of xterm's 256: the 16 by class, the cube and the
// greys by value.
func color256(n int) string {
	switch {
	case n < 16:
		return "f" + strconv.Itoa(n)
	case n < 232:
		n -= 16
		level := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return fmt.Sprintf("#%02x%02x%02x", level(n/36), level(n/6%6), level(n%6))
	}
	g := 8 + 10*(n-232)
	return fmt.Sprintf("#%02x%02x%02x", g, g, g)
}
