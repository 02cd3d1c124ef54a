package main

import (
	"io"
	"testing"

	"github.com/teamctl/teamctl/bench/internal/world"
)

// TestBenchmarkRuns runs the benchmark once, small, so that it does not rot.
func TestBenchmarkRuns(t *testing.T) {
	ctx := world.TestContext(t)
	rep, err := run(ctx, config{worktrees: 3, rounds: 1}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Variants) != 2 || rep.Ratio <= 0 {
		t.Fatalf("report: %+v", rep)
	}
	for _, v := range rep.Variants {
		if len(v.Samples) != 1 || v.Min <= 0 {
			t.Errorf("%s: %+v", v.Name, v)
		}
	}
}
