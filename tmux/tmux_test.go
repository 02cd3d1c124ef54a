package tmux

import (
	"reflect"
	"testing"
)

func TestEscapeKeepsArgumentsLiteral(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain":    "plain",
		"a;":       `a\;`,
		`a\;`:      `a\\;`,
		";":        `\;`,
		"a;b":      "a;b",
		"$(x) ;\n": "$(x) ;\n",
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScriptLineQuotesEveryArgument(t *testing.T) {
	t.Parallel()
	got := scriptLine([][]string{
		{"new-session", "-d", "-e", "K=a;\n$HOME \"q\" \\ ~", "echo", "hi;"},
		{"select-pane", "-t", "%0", "-T", "~lead\x1b\xc3\xa9"},
	})
	want := `"new-session" "-d" "-e" "K=a;\n\$HOME \"q\" \\ \~" "echo" "hi;" ; "select-pane" "-t" "%0" "-T" "\~lead\033\303\251"`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestErrorsNameCommandsNotValues(t *testing.T) {
	t.Parallel()
	cmds := [][]string{
		{"new-session", "-d", "-e", "KEY=sk-secret-1", "-e", "ONE=1", "prog"},
		{"set-environment", "-t", "=x", "TOKEN", "tok-secret-2"},
		{"set-environment", "-u", "-t", "=x", "GONE"},
		{"new-session", "-d", "prog"},
	}
	if got := commandNames(cmds); !reflect.DeepEqual(got, []string{"new-session", "set-environment"}) {
		t.Errorf("names %q", got)
	}
	vals := envValues(cmds)
	if !reflect.DeepEqual(vals, []string{"sk-secret-1", "tok-secret-2"}) {
		t.Errorf("values %q", vals)
	}
	e := &CommandError{Commands: commandNames(cmds), Stderr: redact("bad sk-secret-1 and tok-secret-2\n", vals)}
	if got := e.Error(); got != "tmux new-session, set-environment: bad [value hidden] and [value hidden]" {
		t.Errorf("error %q", got)
	}
}

func TestCommandArgsNeverHandsAStringToTheShell(t *testing.T) {
	t.Parallel()
	if got := CommandArgs([]string{"/usr/bin/htop"}); !reflect.DeepEqual(got, []string{"/bin/sh", "-c", `exec "$0"`, "/usr/bin/htop"}) {
		t.Errorf("one-element argv: %q", got)
	}
	argv := []string{"/bin/claude", "--", "hi; rm -rf /"}
	if got := CommandArgs(argv); !reflect.DeepEqual(got, argv) {
		t.Errorf("argv changed: %q", got)
	}
}

func TestParseVersion(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in         string
		maj, min   int
		ok, recent bool
	}{
		{"tmux 3.3a\n", 3, 3, true, true},
		{"tmux 3.2", 3, 2, true, true},
		{"tmux 3.1c", 3, 1, true, false},
		{"tmux 2.9", 2, 9, true, false},
		{"tmux next-3.4", 3, 4, true, true},
		{"tmux 10.0", 10, 0, true, true},
		{"tmux openbsd-7.4", 99, 0, true, true},
		{"screen 4", 0, 0, false, false},
		{"tmux x.y", 0, 0, false, false},
	} {
		v, err := ParseVersion(c.in)
		if (err == nil) != c.ok {
			t.Errorf("%q: err %v", c.in, err)
			continue
		}
		if !c.ok {
			continue
		}
		if v.Major != c.maj || v.Minor != c.min || v.AtLeast(MinMajor, MinMinor) != c.recent {
			t.Errorf("%q: %+v recent=%v", c.in, v, v.AtLeast(MinMajor, MinMinor))
		}
	}
}
