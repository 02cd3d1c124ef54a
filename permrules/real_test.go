package permrules

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLiteralWordsAreWhatBashPasses: against the real bash, every word the
// reader takes for literal is the argument bash hands the program, byte for
// byte, in a folder holding files a glob would match (push, rm) and with
// IFS, HOME and a variable set; a word it takes for not literal is one bash
// may change. So a rule is matched against what runs.
func TestLiteralWordsAreWhatBashPasses(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	for _, f := range []string{"push", "rm", "pu", "x"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	words := []string{
		`git`, `'a b'`, `"c\"d\q"`, `e\ f`, `$'g\th'`, `$'\x72m'`, `r''m`, `\rm`, `"a"'b'c`, `{}`, `{x}`, `[`, `]`,
		`x^`, `a\\b`, `"\$x"`, `'$x'`, "\"a\\`b\"", `--output=~/x`, `a:~/x`, `-C`, `.`, `%h`, `@`, `a,b`, `x=1`,
		`"$(x)"`, `push${IFS}origin`, `{push,x}`, `pu?h`, `p*`, `p[u]sh`, `~`, `~/x`, `a=~/x`, `$X`, `"$X"`, `$((1))`,
		`$'\101'`, `$'\cA'`, `$'\e'`, `$'\377'`, `$'a\'b'`, `$'\z'`, `$'\x4'`, `x{a,b}`, `{1..3}`, `'*'`, `\*`, `"?"`, `a#b`, `$'\u00e9'`, `"a\
b"`,
	}
	literal := 0
	for _, w := range words {
		sc := split("printf '%s\\0' " + w)
		// The printf is the last command listed (nested ones come first).
		if len(sc.cmds) == 0 || len(sc.cmds[len(sc.cmds)-1].words) != 3 {
			t.Fatalf("%s: read as %+v", w, sc.cmds)
		}
		got := sc.cmds[len(sc.cmds)-1].words[2]
		if !got.lit {
			continue
		}
		literal++
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-c", "printf '%s\\0' "+w)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=/home/you", "X=push origin", "IFS= ", "PATH=" + os.Getenv("PATH")}
		out, err := cmd.Output()
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", w, err)
		}
		if want := strings.TrimSuffix(string(out), "\x00"); got.text != want {
			t.Errorf("%s: read as %q, bash passes %q", w, got.text, want)
		}
	}
	if literal < 20 {
		t.Errorf("only %d literal words checked", literal)
	}
}
