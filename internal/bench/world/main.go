package world

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// Main is a benchmark command's main, after flag.Parse: it calls run with a
// context that SIGINT and SIGTERM cancel and stderr for progress, prints the
// report to stdout (indented JSON with asJSON, else by print) and exits 2
// when run fails (its error prefixed by name), 1 when the report misses its
// target, else returns.
func Main[R interface{ Passed() bool }](name string, asJSON bool, run func(context.Context, io.Writer) (R, error), print func(io.Writer, R)) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := run(ctx, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(2)
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
	} else {
		print(os.Stdout, rep)
	}
	if !rep.Passed() {
		os.Exit(1)
	}
}

// TestContext is for the benchmarks' test (internal/bench/smoke), which runs
// each once, small, so that it does not rot: it skips t with -short or without
// tmux (the test builds teamctl and the benchmarks start tmux servers), and
// returns a context that ends after 5 minutes or with t.
func TestContext(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("builds teamctl and starts tmux servers")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
