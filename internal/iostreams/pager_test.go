package iostreams

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// terminalIO is streams whose Out is a real terminal (a pty's).
func terminalIO(t *testing.T) *IO {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pty:", err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	return &IO{Out: tty, ErrOut: new(bytes.Buffer), tty: true}
}

// TestPager: on a terminal what is written goes through $PAGER, run by the
// shell, with LESS=FRX and LV=-c unless set; a pager that quits before
// reading everything loses the rest without an error; PAGER "" or cat, or
// output that is no terminal, has none.
func TestPager(t *testing.T) {
	dir := t.TempDir()
	got, env := filepath.Join(dir, "got"), filepath.Join(dir, "env")
	t.Setenv("LESS", "")
	os.Unsetenv("LESS")
	t.Setenv("LV", "-x")
	t.Setenv("PAGER", fmt.Sprintf("env > %q; cat > %q", env, got))
	s := terminalIO(t)
	tty := s.Out
	if err := s.StartPager(); err != nil {
		t.Fatal(err)
	}
	if s.Out == tty {
		t.Fatal("no pager on a terminal")
	}
	fmt.Fprint(s.Out, "one page\n")
	s.StopPager()
	if s.Out != tty {
		t.Error("Out is not the terminal again")
	}
	b, _ := os.ReadFile(got)
	e, _ := os.ReadFile(env)
	if string(b) != "one page\n" || !strings.Contains(string(e), "\nLESS=FRX\n") || !strings.Contains(string(e), "\nLV=-x\n") {
		t.Errorf("the pager read %q; its env:\n%s", b, e)
	}

	t.Setenv("PAGER", "true") // quits at once
	if err := s.StartPager(); err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		if _, err := fmt.Fprint(s.Out, strings.Repeat("x", 1000)+"\n"); err != nil {
			t.Fatalf("writing after the pager quit: %v", err)
		}
	}
	s.StopPager()

	for _, p := range []string{"", "cat", " cat "} {
		t.Setenv("PAGER", p)
		if s.StartPager(); s.Out != tty {
			t.Errorf("PAGER=%q: a pager", p)
			s.StopPager()
		}
	}
	t.Setenv("PAGER", "cat > "+got)
	piped := Test(nil, new(bytes.Buffer), new(bytes.Buffer))
	out := piped.Out
	if piped.StartPager(); piped.Out != out {
		t.Error("a pager for output that is no terminal")
	}
}
