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
	rep, err := run(ctx, config{members: 2, rate: 20, print: time.Second, quiet: 300 * time.Millisecond}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Stalls != 2 || rep.HWMKB <= 0 || rep.RSSKB <= 0 || rep.RSSKB > rep.HWMKB {
		t.Fatalf("report: %+v", rep)
	}
}
