package tmux

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestEscapeKeepsArgumentsLiteral(t *testing.T) {
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

func TestBatchChainsCommands(t *testing.T) {
	var b Batch
	b.Add("new-session", "-d", "echo", "hi;")
	b.Add("select-pane", "-t", "%0", "-T", "lead")
	want := []string{"new-session", "-d", "echo", `hi\;`, ";", "select-pane", "-t", "%0", "-T", "lead"}
	if got := b.Args(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestCommandArgsNeverHandsAStringToTheShell(t *testing.T) {
	if got := CommandArgs([]string{"/usr/bin/htop"}); !reflect.DeepEqual(got, []string{"/bin/sh", "-c", `exec "$0"`, "/usr/bin/htop"}) {
		t.Errorf("one-element argv: %q", got)
	}
	argv := []string{"/bin/claude", "--", "hi; rm -rf /"}
	if got := CommandArgs(argv); !reflect.DeepEqual(got, argv) {
		t.Errorf("argv changed: %q", got)
	}
}

func TestParseVersion(t *testing.T) {
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

func TestBatchChunksStayUnderTmuxsLimit(t *testing.T) {
	var b Batch
	long := strings.Repeat("x", 500)
	for i := 0; i < 100; i++ {
		b.Add("split-window", "-t", "%0", "/bin/prog", long, fmt.Sprint(i))
	}
	chunks := b.chunks()
	if len(chunks) < 4 {
		t.Fatalf("%d chunks for ~50 KiB of commands", len(chunks))
	}
	next := 0
	for _, c := range chunks {
		size := 0
		for _, a := range c {
			size += len(a) + 1
		}
		if size > maxBatchBytes {
			t.Errorf("chunk of %d bytes", size)
		}
		if c[len(c)-1] == ";" || c[0] == ";" {
			t.Errorf("chunk split inside a command: %q … %q", c[0], c[len(c)-1])
		}
		for i, a := range c {
			if a == long {
				if c[i+1] != fmt.Sprint(next) {
					t.Fatalf("command %s out of order", c[i+1])
				}
				next++
			}
		}
	}
	if next != 100 {
		t.Errorf("%d commands in the chunks, want 100", next)
	}
}
