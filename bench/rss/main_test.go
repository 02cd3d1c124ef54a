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
	rep, err := run(ctx, config{members: 2, rate: 20, print: time.Second, quiet: 300 * time.Millisecond}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Stalls != 2 || rep.HWMKB <= 0 || rep.RSSKB <= 0 || rep.RSSKB > rep.HWMKB {
		t.Fatalf("report: %+v", rep)
	}
}
