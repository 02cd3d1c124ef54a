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
	rep, err := run(ctx, config{members: 3, rate: 10, samples: 4, rounds: 1, duration: 300 * time.Millisecond, settle: 200 * time.Millisecond}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.EventMS) != 2 || len(rep.StateMS) != 2 || rep.P95 <= 0 || rep.TopCPU < 0 || rep.WatchCPU < 0 || rep.HWMKB <= 0 {
		t.Fatalf("report: %+v", rep)
	}
}
