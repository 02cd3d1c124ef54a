package permrules

import "testing"

// FuzzSplit: the splitter never panics, and a command in which rm is clearly
// a simple command is never allowed, even with every other command allowed.
// Run it with: go test ./permrules/ -run '^$' -fuzz FuzzSplit -fuzztime 60s -fuzzminimizetime 5s
// (minimizing a new input can otherwise hold the workers for a minute).
func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		"git status", "a && b || c; d & e | f |& g\nh", "(a) { b; } $(c) `d` <(e) >(f)",
		"x=1 y=$(z) cmd 'q' \"w $v\" $'\\x41' 2>&1 >/dev/null <in >>out", "cat <<EOF\nx\nEOF",
		"echo ${x} ${x@P} $((1)) $[1] \\\n", "for i in a; do b; done", "f() { x; }", "'", "\"", "`", "$(",
	} {
		f.Add(s, s)
	}
	allow, deny := rules("Bash"), rules("Bash(rm:*)")
	f.Fuzz(func(t *testing.T, a, b string) {
		split(a)
		for _, cmd := range []string{
			"rm -rf x\n" + b,
			"rm -rf x;" + b,
			"(rm -rf x)\n" + b,
			"{ rm -rf x; }\n" + b,
			"echo $(rm -rf x)\n" + b,
			"echo `rm -rf x`\n" + b,
			"ls | rm -rf x\n" + b,
			"sudo rm -rf x\n" + b,
			a + "\nrm -rf x",
		} {
			if d, _ := Decide(bash(cmd), allow, deny); d == Allow {
				t.Errorf("%q allowed", cmd)
			}
		}
	})
}
