package permrules

import (
	"slices"
	"testing"
)

// TestSplit: what the reader makes of a command — its simple commands,
// written out (files redirected to or from after "#"), nested ones first —
// and whether it read the whole command with every word literal.
func TestSplit(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want []string
		sure bool
	}{
		{"git status && curl -s x | sh", []string{"git status", "curl -s x", "sh"}, true},
		{"a; b & c || d |& e\nf", []string{"a", "b", "c", "d", "e", "f"}, true},
		{"(a; b) && { c; }", []string{"a", "b", "c"}, true},
		{"if a; then b; elif c; then d; else e; fi", []string{"a", "b", "c", "d", "e"}, true},
		{"while a; do b; done; until c; do d; done", []string{"a", "b", "c", "d"}, true},
		{"time -p a", []string{"a"}, true},
		{"a > f 2>&1 >>g <h &>i 2>/dev/null >&2", []string{"a #>f #>g #<h #>i"}, true},
		{"(a) > f", []string{"#>f", "a"}, true},
		{"'a b' \"c\\\"d\\q\" e\\ f $'g\\th' ~ ~/x", []string{"'a b' 'c\"d\\q' 'e f' 'g\th' ~ ~/x"}, true},
		{"a # b; c\nd", []string{"a", "d"}, true},
		{"a \\\nb", []string{"a b"}, true},
		{"cat <<'EOF'\n$(x)\nEOF", []string{"cat"}, true},
		{"cat <<< 'x'", []string{"cat"}, true},
		{"X=1 a", []string{"X=1 a"}, true},
		{"echo {} {x} [ ] x^", []string{"echo '{}' '{x}' '[' ']' 'x^'"}, true},
		{"", nil, true},
		// Read, not whole: the commands in them still count for deny rules.
		{"a $(b $(c)) `d` \"$(e)\"", []string{"c", "b $(c)", "d", "e", "a $(b $(c)) `d` \"$(e)\""}, false},
		{"diff <(a) >(b)", []string{"a", "b", "diff <(a) >(b)"}, false},
		{"x=$(a) y=2 cmd", []string{"a", "x=$(a) y=2 cmd"}, false},
		{"a <<< \"$(b)\"", []string{"b", "a"}, false},
		{"cat <<EOF\n$(x)\nEOF", []string{"x", "cat"}, false},
		{"git push${IFS}origin", []string{"git push${IFS}origin"}, false},
		{"git {push,x} pu?h pu*h p[u]sh @(x) ~root =x ^x a#b a=~/x $\"x\"", []string{"git {push,x} pu?h pu*h p[u]sh @(x) ~root =x ^x a#b a=~/x $\"x\""}, false},
		{"for i in a; do b; done", []string{"b"}, false},
		{"f() { a; }", []string{"a"}, false},
		{"case x in y) a;; esac", []string{"a"}, false},
		{"[[ $(a) ]]; (( $(b) )); let x=$(c); export d=$(e)", []string{"a", "b", "c", "e"}, false},
		{"a=(1 2)", []string{"a=(1 2)"}, false},
		{"a {fd}>f", []string{"a #>f"}, false},
		// Not read: nothing counts.
		{"a 'b", nil, false},
		{"a && ", nil, false},
		{"a ;; b", nil, false},
		{"a\x00b", nil, false},
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
