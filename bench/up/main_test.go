package main

import (
	"io"
	"testing"

	"github.com/teamctl/teamctl/bench/internal/world"
)

// TestBenchmarkRuns runs the benchmark once, small, so that it does not rot.
func TestBenchmarkRuns(t *testing.T) {
	ctx := world.TestContext(t)
	rep, err := run(ctx, config{members: 4, rounds: 1}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Variants) != 3 || rep.RatioPerCommand <= 0 || rep.RatioSingle <= 0 {
		t.Fatalf("report: %+v", rep)
	}
	for _, v := range rep.Variants {
		if len(v.Samples) != 1 || v.Min <= 0 || v.Median != v.Min || v.P90 != v.Min {
			t.Errorf("%s: %+v", v.Name, v)
		}
	}
}
