package web

import (
	"encoding/json"
	"testing"
)

// TestSpans: SGR sequences become our own classes and colours, every other
// escape sequence goes, tags and control characters stay text.
func TestSpans(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"plain", `[{"t":"plain"}]`},
		{"", `[]`},
		{"\x1b[31mred\x1b[0m <b>x</b>", `[{"t":"red","c":"f1"},{"t":" \u003cb\u003ex\u003c/b\u003e"}]`},
		{"\x1b[1;92;44mA\x1b[22mB\x1b[39;49mC", `[{"t":"A","c":"b f10 g4"},{"t":"B","c":"f10 g4"},{"t":"C"}]`},
		{"\x1b[38;5;208mo\x1b[48;5;1mr\x1b[38;2;1;2;3mt", `[{"t":"o","fg":"#ff8700"},{"t":"r","c":"g1","fg":"#ff8700"},{"t":"t","c":"g1","fg":"#010203"}]`},
		{"\x1b[38;5;232mg\x1b[m", `[{"t":"g","fg":"#080808"}]`},
		{"a\x1b[2Kb\x1b]0;title\x07c\x1b[", `[{"t":"ab0;title\\ac"}]`},
		{"\x1b[4;7;3mx\x1b[24;27;23my", `[{"t":"x","c":"i u v"},{"t":"y"}]`},
		{"\x1b[38;2;300;0;0mz", `[{"t":"z"}]`},
	} {
		b, _ := json.Marshal(spans(c.line))
		if string(b) != c.want {
			t.Errorf("spans(%q)\n got %s\nwant %s", c.line, b, c.want)
		}
	}
}
