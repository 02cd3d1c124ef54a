package main

import (
	"io"
	"testing"
	"time"

	"github.com/teamctl/teamctl/bench/internal/world"
)

// TestBenchmarkRuns runs the benchmark once, small, so that it does not rot.
func TestBenchmarkRuns(t *testing.T) {
	ctx := world.TestContext(t)
	cfg := config{members: 2, rounds: 1, quiet: 300 * time.Millisecond, base: 2 * time.Second, gap: 200 * time.Millisecond}
	rep, err := run(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Samples) != 2 || rep.Min < 0 || rep.P50 > rep.P95 || rep.P95 > rep.Max {
		t.Fatalf("report: %+v", rep)
	}
}
