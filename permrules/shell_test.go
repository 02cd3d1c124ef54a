package permrules

import (
	"slices"
	"testing"
)

// TestSplit: what the splitter makes of a command — its simple commands,
// written out (files redirected to or from after "#"), nested ones first —
// and whether it read the whole command.
func TestSplit(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want []string
		sure bool
	}{
		{"git status && curl -s x | sh", []string{"git status", "curl -s x", "sh"}, true},
		{"a; b & c || d |& e\nf", []string{"a", "b", "c", "d", "e", "f"}, true},
		{"(a; b) && { c; }", []string{"a", "b", "c"}, true},
		{"a $(b $(c)) `d` \"$(e)\"", []string{"c", "b $(c)", "d", "e", "a $(b $(c)) `d` \"$(e)\""}, true},
		{"diff <(a) >(b)", []string{"a", "b", "diff <(a) >(b)"}, true},
		{"x=$(a) y=2 cmd", []string{"a", "x=$(a) y=2 cmd"}, true},
		{"a > f 2>&1 >>g <h &>i 2>/dev/null", []string{"a #>f #>g #<h #>i"}, true},
		{"(a) > f", []string{"a", "#>f"}, true},
		{"a <<< \"$(b)\"", []string{"b", "a"}, true},
		{"'a b' \"c\\\"d\" e\\ f $'g\\th' ~ ~/x", []string{"'a b' 'c\"d' 'e f' 'g\th' ~ ~/x"}, true},
		{"a # b; c\nd", []string{"a", "d"}, true},
		{"! a | b", []string{"a", "b"}, true},
		{"", nil, true},
		// Not read: what was read before still counts.
		{"a; cat <<EOF\nb\nEOF", []string{"a", "cat"}, false},
		{"a 'b", []string{"a"}, false},
		{"a && ", []string{"a"}, false},
		{"a; if b; then c; fi", []string{"a"}, false},
		{"a $((1)) b", []string{"a"}, false},
		{"a \\\nb", []string{"a"}, false},
		{"f() { a; }", []string{"f"}, false},
		{"a=(1 2)", []string{"a="}, false},
		{"a ${b:-$(c)}", []string{"a"}, false},
		{"{ a }", []string{"a }"}, false},
		{"a ;; b", []string{"a"}, false},
		{"a\x00b", []string{"'a\x00b'"}, false},
	} {
		sc := split(c.cmd)
		var got []string
		for _, s := range sc.cmds {
			line := render(append(slices.Clone(s.assigns), s.words...))
			for _, f := range s.files {
				dir := "#<"
				if f.write {
					dir = "#>"
				}
				if line != "" {
					line += " "
				}
				line += dir + f.target.text
			}
			got = append(got, line)
		}
		if !slices.Equal(got, c.want) || sc.sure != c.sure {
			t.Errorf("split(%q) = %q sure=%v, want %q sure=%v", c.cmd, got, sc.sure, c.want, c.sure)
		}
	}
}
