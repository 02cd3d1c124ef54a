package smoke_test

import (
	"context"
	"flag"
	"io"
	"os"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/bench/cleanbench"
	"github.com/teamctl/teamctl/internal/bench/costbench"
	"github.com/teamctl/teamctl/internal/bench/diffbench"
	"github.com/teamctl/teamctl/internal/bench/latencybench"
	"github.com/teamctl/teamctl/internal/bench/radarbench"
	"github.com/teamctl/teamctl/internal/bench/rssbench"
	"github.com/teamctl/teamctl/internal/bench/servebench"
	"github.com/teamctl/teamctl/internal/bench/topbench"
	"github.com/teamctl/teamctl/internal/bench/upbench"
	"github.com/teamctl/teamctl/internal/bench/world"
	"github.com/teamctl/teamctl/internal/browser"
)

// TestMain runs all the benchmarks at once unless -parallel says otherwise:
// -parallel is GOMAXPROCS by default, 2 on a 2-core machine, and each of them
// spends nearly all its time waiting for its team (as cmd/teamctl's tests).
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", "6")
	}
	os.Exit(m.Run())
}

// TestBenchmarksRun runs each benchmark once, small, so that it does not rot:
// all of them at once (each mostly waits for its team), in worlds of their own,
// on one teamctl binary built for them all. `-run TestBenchmarksRun/top` runs
// one.
func TestBenchmarksRun(t *testing.T) {
	ctx := world.TestContext(t)
	bin, remove, err := world.Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(remove) // not a defer: the parallel subtests run after this returns
	for _, b := range []struct {
		name string
		test func(t *testing.T, ctx context.Context, bin string)
	}{
		{"clean", clean},
		{"cost", cost},
		{"diff", diff},
		{"latency", latency},
		{"radar", radar},
		{"rss", rss},
		{"top", top},
		{"up", up},
	} {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			b.test(t, ctx, bin)
		})
	}
}

func clean(t *testing.T, ctx context.Context, bin string) {
	rep, err := cleanbench.Run(ctx, cleanbench.Config{Worktrees: 3, Rounds: 1, Bin: bin}, io.Discard)
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

// radar and diff need no teamctl binary: they call its code in process.
func radar(t *testing.T, ctx context.Context, _ string) {
	rep, err := radarbench.Run(ctx, radarbench.Config{Files: 40, Members: 3, Changed: 8, Rounds: 1}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	// Neighbours conflict on one line: m00+m01 and m01+m02.
	if rep.Pairs != 3 || rep.Conflicts != 2 || len(rep.Variants) != 3 || rep.Ratio <= 0 || rep.RatioWork <= 0 {
		t.Fatalf("report: %+v", rep)
	}
	for _, v := range rep.Variants {
		if len(v.Samples) != 1 || v.Min <= 0 {
			t.Errorf("%s: %+v", v.Name, v)
		}
	}
}

func diff(t *testing.T, ctx context.Context, _ string) {
	rep, err := diffbench.Run(ctx, diffbench.Config{Files: 40, Members: 3, Changed: 8, Rounds: 1}, io.Discard)
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

func cost(t *testing.T, ctx context.Context, bin string) {
	cfg := costbench.Config{Members: 2, Rate: 20, Duration: 500 * time.Millisecond, Every: 100 * time.Millisecond, Quiet: 2 * time.Second, Settle: 200 * time.Millisecond, MinRounds: 1, Bin: bin}
	rep, err := costbench.Run(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	// Two panes, a capture of each every 100ms for 500ms: 4 or 5 rounds on a
	// quiet machine; on a loaded one (each capture is a process start) the
	// window lasts until one round is made.
	// ReferenceCPU is getrusage of this whole process (RUSAGE_SELF and
	// RUSAGE_CHILDREN): here it also counts the other benchmarks running at the
	// same time and the processes they reaped, so it is no measure, but it is
	// still > 0.
	if rep.Captures < cfg.Members || rep.ReferenceCPU <= 0 || rep.SupervisorAll < 0 || rep.ClockTicks <= 0 {
		t.Fatalf("report: %+v", rep)
	}
}

func latency(t *testing.T, ctx context.Context, bin string) {
	cfg := latencybench.Config{Members: 2, Rounds: 1, Quiet: 300 * time.Millisecond, Base: 2 * time.Second, Gap: 200 * time.Millisecond, Bin: bin}
	rep, err := latencybench.Run(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Samples) != 2 || rep.Min < 0 || rep.P50 > rep.P95 || rep.P95 > rep.Max {
		t.Fatalf("report: %+v", rep)
	}
}

func rss(t *testing.T, ctx context.Context, bin string) {
	rep, err := rssbench.Run(ctx, rssbench.Config{Members: 2, Rate: 20, Print: time.Second, Quiet: 300 * time.Millisecond, Bin: bin}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Stalls != 2 || rep.HWMKB <= 0 || rep.RSSKB <= 0 || rep.RSSKB > rep.HWMKB {
		t.Fatalf("report: %+v", rep)
	}
}

// top is the only one that sets process-wide state (XDG_STATE_HOME,
// TMUX_TMPDIR and tmux.Coalesce, for the state files it writes and the tmux
// control client it reads through, until it returns); the others give every
// command they run their world's environment, and run no tmux client in this
// process.
func top(t *testing.T, ctx context.Context, bin string) {
	rep, err := topbench.Run(ctx, topbench.Config{Members: 3, Rate: 10, Samples: 4, Rounds: 1, Duration: 300 * time.Millisecond, Settle: 200 * time.Millisecond, Pace: 50 * time.Millisecond, Bin: bin}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.EventMS) != 2 || len(rep.StateMS) != 2 || rep.P95 <= 0 || rep.TopCPU < 0 || rep.WatchCPU < 0 || rep.HWMKB <= 0 {
		t.Fatalf("report: %+v", rep)
	}
}

func up(t *testing.T, ctx context.Context, bin string) {
	rep, err := upbench.Run(ctx, upbench.Config{Members: 4, Rounds: 1, Bin: bin}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Variants) != 6 || rep.RatioPerCommand <= 0 || rep.RatioSingle <= 0 || rep.RatioConfig <= 0 || rep.RatioPlain <= 0 {
		t.Fatalf("report: %+v", rep)
	}
	for _, v := range rep.Variants {
		if len(v.Samples) != 1 || v.Min <= 0 || v.Median != v.Min || v.P90 != v.Min {
			t.Errorf("%s: %+v", v.Name, v)
		}
	}
}

// TestServeBenchmarkRuns runs bench/serve once, small, on its own: like
// bench/top it points the whole process at its world (XDG_STATE_HOME,
// TMUX_TMPDIR) while it runs, so it never runs beside top's. It needs
// headless Chromium (browser.Need: a failure when CI=true and it is missing).
func TestServeBenchmarkRuns(t *testing.T) {
	ctx := world.TestContext(t)
	browser.Need(t)
	bin, remove, err := world.Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	rep, err := servebench.Run(ctx, servebench.Config{Members: 3, Rate: 10, Samples: 4, Pages: 2, Loads: 10,
		Duration: 300 * time.Millisecond, Settle: 100 * time.Millisecond, Pace: 50 * time.Millisecond, Bin: bin}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.EventMS) != 2 || len(rep.StateMS) != 2 || rep.P95 <= 0 || rep.ServeCPU < 0 || rep.HWMKB <= 0 || len(rep.LoadErrors) != 0 {
		t.Fatalf("report: %+v", rep)
	}
}
