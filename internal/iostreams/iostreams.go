// Package iostreams decides, once, where output goes, whether it is a
// terminal that gets colour (never with NO_COLOR, never when piped), and
// whether it goes through a pager.
package iostreams

import (
	"io"
	"os"
	"strconv"

	"github.com/creack/pty"
)

// IO is a command's standard streams.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	tty    bool
	color  bool
	cols   int // a terminal's width set by Terminal; 0: ask the terminal
	pager  *pager
}

// System returns the process's own streams.
func System() *IO {
	tty := isTerminal(os.Stdout)
	_, noColor := os.LookupEnv("NO_COLOR")
	return &IO{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, tty: tty, color: tty && !noColor && os.Getenv("TERM") != "dumb"}
}

// Test returns streams for tests: not a terminal, no colour.
func Test(in io.Reader, out, errOut io.Writer) *IO {
	return &IO{In: in, Out: out, ErrOut: errOut}
}

// Terminal returns streams for tests that act as a terminal cols wide (0: of
// unknown width), with colour when color is true: what a person sees.
func Terminal(in io.Reader, out, errOut io.Writer, cols int, color bool) *IO {
	return &IO{In: in, Out: out, ErrOut: errOut, tty: true, color: color, cols: cols}
}

// IsTTY reports whether standard output is a terminal.
func (s *IO) IsTTY() bool { return s.tty }

// InteractiveTTY reports whether both standard input and output are terminals,
// which attaching needs.
func (s *IO) InteractiveTTY() bool {
	f, ok := s.In.(*os.File)
	return s.tty && ok && isTerminal(f)
}

// ColorOn reports whether output gets colour.
func (s *IO) ColorOn() bool { return s.color }

// Color wraps text in an ANSI colour when colour is on. code is an SGR number.
func (s *IO) Color(code, text string) string {
	if !s.color {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

// TerminalSize is the size of the terminal on standard output, or 0, 0.
func (s *IO) TerminalSize() (cols, rows int) {
	f, ok := s.Out.(*os.File)
	if !ok || !s.tty {
		return 0, 0
	}
	rows, cols, err := pty.Getsize(f)
	if err != nil {
		return 0, 0
	}
	return cols, rows
}

// Width is how many columns a line may take before the terminal wraps it:
// the terminal's width, else $COLUMNS when its size cannot be had. It is 0, no
// limit, when output is not a terminal: a pipe or a file gets every value
// whole, for scripts.
func (s *IO) Width() int {
	if !s.tty {
		return 0
	}
	if s.cols > 0 {
		return s.cols
	}
	if cols, _ := s.TerminalSize(); cols > 0 {
		return cols
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}

func isTerminal(f *os.File) bool {
	_, _, err := pty.Getsize(f)
	return err == nil
}
