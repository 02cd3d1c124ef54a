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
	cfg := config{members: 2, rate: 20, duration: 500 * time.Millisecond, every: 100 * time.Millisecond, quiet: 2 * time.Second, settle: 200 * time.Millisecond}
	rep, err := run(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	// Two panes, a capture of each every 100ms for 500ms: 4 or 5 rounds on a
	// quiet machine, as few as one on a loaded one (each capture is a process start).
	if rep.Captures < cfg.members || rep.ReferenceCPU <= 0 || rep.SupervisorAll < 0 || rep.ClockTicks <= 0 {
		t.Fatalf("report: %+v", rep)
	}
}
