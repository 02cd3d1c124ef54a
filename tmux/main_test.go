package tmux

import (
	"fmt"
	"os"
	"testing"
)

// TestMain gives the package's tests one TMUX_TMPDIR of their own (a short
// folder: a socket path may hold at most 107 bytes), set once for the process
// rather than by each test with t.Setenv, so that each test, on its own
// socket there, can run in parallel with the others: they spend their time
// waiting for tmux (its once-a-second exit reports above all).
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tmuxt")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("TMUX_TMPDIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
