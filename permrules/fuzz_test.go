package permrules

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzBash: random bash through the whole Bash path (the parser, the
// reading, the decision). It never panics; it never approves, under a bare
// Bash allow with Bash denies, a command the parser could not read whole (a
// parse error, or any expansion: parameter, command, arithmetic or process
// substitution, an extended glob, an unquoted * or ?), checked here against
// the parser's own tree, not against sh.go's reading; and a command in which
// rm is clearly a simple command is never approved, even with every other
// command allowed. Its seed corpus runs in go test -short. Run it with:
//
//	go test ./permrules/ -run '^$' -fuzz FuzzBash -fuzztime 60s -fuzzminimizetime 5s
func FuzzBash(f *testing.F) {
	for _, s := range []string{
		"git status", "a && b || c; d & e | f |& g\nh", "(a) { b; } $(c) `d` <(e) >(f)",
		"x=1 y=$(z) cmd 'q' \"w $v\" $'\\x41' 2>&1 >/dev/null <in >>out", "cat <<EOF\nx\nEOF",
		"echo ${x} ${x@P} $((1)) $[1] \\\n", "for i in a; do b; done", "f() { x; }", "'", "\"", "`", "$(",
		"git push${IFS}origin${IFS}main", "git {push,origin,main}", "git pu?h origin main", "rm${IFS}-rf ~",
		"{rm,-rf,~}", "r{m,} x", "/bin/r? -rf ~", "/???/?m -rf ~", "r* -rf ~", "~/../../bin/rm x",
		"$(echo rm) -rf ~", "`echo rm` x", "${RM} x", "\"$RM\" x", "echo 'rm -rf ~' | bash",
		"bash <<< 'rm -rf ~'", "base64 -d <<< cm0gLXJmIH4= | sh", "trap 'rm x' EXIT", "alias x=rm; x y",
		"set -- rm x; \"$@\"", "git -C . push", "git --no-pager push", "git diff --output=/home/you/.bashrc",
		"go test -exec 'rm -rf ~'", "git -c core.sshCommand=x fetch", "echo {a..c} {}{,} \\{x,y}",
		"echo @(a|b) !(x) +(y)", "a[$(rm x)]=1", "exec {fd}>x", "coproc x", "[[ -f x ]]", "let x=1",
		"case $x in a) rm;; esac", "select x in a; do b; done", "time -p ls", "! ls", "ls &>x", "ls |& cat",
		"echo $'\\u00e9\\c@\\0'", "echo \"a\\$b\\\"c\"", "sed 's/a/b/e' f", "awk '{system(x)}'",
		"python3 -c x", "sh -c \"sh -c 'rm x'\"", "find . -exec rm {} +", "xargs -0 rm",
	} {
		f.Add(s, "ls")
	}
	bare, deny := rules("Bash"), rules("Bash(rm:*)", "Bash(git push:*)")
	f.Fuzz(func(t *testing.T, a, b string) {
		split(a)
		c := bash(a)
		d, _ := Decide(c, bare, deny)
		// The command as Decide gets it (JSON makes invalid UTF-8 U+FFFD).
		var in struct{ Command string }
		if err := json.Unmarshal(c.Input, &in); err != nil {
			t.Fatal(err)
		}
		if d == Allow && !readWhole(in.Command) {
			t.Errorf("%q allowed, but the parser does not read it whole", in.Command)
		}
		for i, cmd := range []string{
			"rm -rf x\n" + b,
			"rm -rf x;" + b,
			"(rm -rf x)\n" + b,
			"{ rm -rf x; }\n" + b,
			"echo $(rm -rf x)\n" + b,
			"echo `rm -rf x`\n" + b,
			"ls | rm -rf x\n" + b,
			"sudo rm -rf x\n" + b,
			a + "\nrm -rf x",
			a + ";rm -rf x",
			a,
		} {
			d, _ := Decide(bash(cmd), bare, deny)
			if d == Allow && i < 8 {
				t.Errorf("%q allowed", cmd)
			}
			if d != Deny && runsRm(cmd) {
				t.Errorf("%q: %s, but the parser reads rm in it as a command", cmd, d.name())
			}
		}
	})
}

// runsRm: the parser reads the command whole, and a simple command in it is
// rm, written plainly.
func runsRm(cmd string) bool {
	if strings.ContainsRune(cmd, 0) || !utf8.ValidString(cmd) {
		return false
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return false
	}
	found := false
	syntax.Walk(file, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 && len(c.Args[0].Parts) == 1 {
			if l, ok := c.Args[0].Parts[0].(*syntax.Lit); ok && l.Value == "rm" {
				found = true
			}
		}
		return !found
	})
	return found
}

// readWhole is the fuzz test's own judgement, from the parser's tree alone:
// false for a command the parser rejects or that holds an expansion.
func readWhole(cmd string) bool {
	if strings.ContainsRune(cmd, 0) {
		return false
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return false
	}
	whole := true
	var walk func(n syntax.Node, globs bool)
	walk = func(n syntax.Node, globs bool) {
		syntax.Walk(n, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst, *syntax.ExtGlob,
				*syntax.ArithmCmd, *syntax.LetClause, *syntax.FuncDecl, *syntax.ForClause, *syntax.CaseClause:
				whole = false
			case *syntax.Redirect:
				// A here-document's body is data: only its expansions count.
				if n.Word != nil {
					walk(n.Word, true)
				}
				if n.Hdoc != nil {
					walk(n.Hdoc, false)
				}
				return false
			case *syntax.Word:
				for _, p := range n.Parts {
					if l, ok := p.(*syntax.Lit); ok && globs && unescapedGlob(l.Value) {
						whole = false
					}
				}
			}
			return whole
		})
	}
	walk(file, true)
	return whole
}

func unescapedGlob(v string) bool {
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		}
	}
	return false
}
