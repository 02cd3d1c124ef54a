package main

import (
	"context"
	"io"
	"os/exec"
	"testing"
	"time"
)

// TestBenchmarkRuns runs the benchmark once, small, so that it does not rot.
func TestBenchmarkRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds teamctl and starts tmux servers")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := config{members: 2, rounds: 1, quiet: 300 * time.Millisecond, base: 2 * time.Second, gap: 200 * time.Millisecond}
	rep, err := run(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Samples) != 2 || rep.Min < 0 || rep.P50 > rep.P95 || rep.P95 > rep.Max {
		t.Fatalf("report: %+v", rep)
	}
}
