// Package topbench is the benchmark `go run ./bench/top` runs; see that command's doc.
package topbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/bench/world"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

const (
	targetP95  = 200.0    // ms
	targetCore = 1.0      // % of one core
	targetKB   = 40 << 10 // VmHWM, kB
	team       = "top"
	viewer     = "viewer"
)

// Config is a run's settings: bench/top's flags, and Bin.
type Config struct {
	Members, Rate, Samples, Rounds int
	Duration                       time.Duration
	Settle                         time.Duration // after a watcher starts, before its window
	Pace                           time.Duration // least pause between two changes (up to 5/3 of it, at random)
	Bin                            string        // a teamctl binary already built; "" builds one for the run (see world.Teamctl)
}

// Report is the whole result, as -json prints it.
type Report struct {
	Members        int       `json:"members"`
	Rate           int       `json:"lines_per_second_each"`
	Samples        int       `json:"samples"`
	EventMS        []float64 `json:"event_latencies_ms"`
	StateMS        []float64 `json:"state_latencies_ms"`
	P50            float64   `json:"p50_ms"`
	P95            float64   `json:"p95_ms"`
	Max            float64   `json:"max_ms"`
	WindowS        float64   `json:"window_s"`
	Rounds         int       `json:"rounds"`
	ClockTicks     int64     `json:"clock_ticks_per_s"`
	ClockTicksFrom string    `json:"clock_ticks_from"`
	TopCPU         float64   `json:"top_cpu_s"`
	TopControlCPU  float64   `json:"top_control_client_cpu_s"`
	WatchCPU       float64   `json:"status_w_cpu_s"`
	TopCore        float64   `json:"top_core_percent"`
	WatchCore      float64   `json:"status_w_core_percent"`
	Ratio          float64   `json:"ratio_top_status_w"`
	HWMKB          int64     `json:"top_vm_hwm_kb"`
	TargetP95      float64   `json:"target_p95_ms"`
	TargetCore     float64   `json:"target_core_percent"`
	TargetKB       int64     `json:"target_vm_hwm_kb"`
	Pass           bool      `json:"pass"`
}

// Passed is whether r meets the targets.
func (r *Report) Passed() bool { return r.Pass }

// Run builds teamctl (unless cfg.Bin is one) and measures; progress goes to log.
func Run(ctx context.Context, cfg Config, log io.Writer) (*Report, error) {
	if cfg.Members < 2 || cfg.Rate < 1 || cfg.Samples < 2 || cfg.Rounds < 1 || cfg.Duration <= 0 || cfg.Settle < 0 || cfg.Pace < 0 {
		return nil, errors.New("need -members >= 2, -rate >= 1, -samples >= 2, -rounds >= 1, -duration > 0, -settle >= 0, -pace >= 0")
	}
	bin, remove, err := world.Teamctl(ctx, log, cfg.Bin)
	if err != nil {
		return nil, err
	}
	defer remove()
	hz, how := world.ClockTicks(ctx)
	rep := &Report{Members: cfg.Members, Rate: cfg.Rate, Samples: cfg.Samples, WindowS: cfg.Duration.Seconds(), Rounds: cfg.Rounds,
		ClockTicks: hz, ClockTicksFrom: how, TargetP95: targetP95, TargetCore: targetCore, TargetKB: targetKB}

	w, err := world.New(bin, team)
	if err != nil {
		return nil, err
	}
	defer w.Destroy()
	// This process writes the team's files and reads the viewer's server
	// itself: in the world's folders. They are the whole process's: until Run
	// returns, anything else in it that uses the state package or runs tmux or
	// teamctl with the process's environment gets this world (the other
	// benchmarks give every command they run their own world's Env).
	defer w.InProcess()()
	script := fmt.Sprintf("lines:%d", cfg.Rate)
	var members []world.Member
	for _, name := range world.Names(cfg.Members) {
		members = append(members, world.Member{Name: name, Script: script})
	}
	fmt.Fprintf(log, "bringing up %d members printing %d lines/s each\n", cfg.Members, cfg.Rate)
	if err := w.Up(ctx, 2*time.Second, members); err != nil {
		return nil, err
	}
	if _, _, err := w.WaitSupervisor(ctx, 30*time.Second); err != nil {
		return nil, err
	}
	out, err := w.TmuxOn(ctx, viewer, "new-session", "-d", "-s", "v", "-x", "100", "-y", "30", "-P", "-F", "#{pane_id}",
		bin, "top", "--team", team)
	if err != nil {
		return nil, fmt.Errorf("start top in the viewer: %v: %s", err, out)
	}
	pane := strings.TrimSpace(out)
	srv := &tmux.Server{Socket: viewer}
	if err := waitScreen(ctx, srv, pane, "mate-01", 30*time.Second); err != nil {
		return nil, err
	}

	// 1. Latency.
	fmt.Fprintf(log, "latency: %d changes\n", cfg.Samples)
	if err := latency(ctx, cfg, srv, pane, rep); err != nil {
		return nil, err
	}
	rep.P50, rep.P95, rep.Max = percentiles(append(append([]float64{}, rep.EventMS...), rep.StateMS...))

	// 2. CPU, top then status -w, in turn.
	var topTicks, topCtl, watchTicks int64
	for r := range cfg.Rounds {
		// The first window watches the top that was timed (its memory peak
		// counts); later ones a new one.
		what, argv := "top", []string{bin, "top", "--team", team}
		if r == 0 {
			what, argv = "", nil
		}
		if err := respawn(ctx, w, srv, pane, cfg.Settle, what, "mate-01", argv...); err != nil {
			return nil, err
		}
		pid, err := panePID(ctx, srv, pane)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(log, "window %d/%d: top (pid %d), %s\n", 2*r+1, 2*cfg.Rounds, pid, cfg.Duration)
		all, ctlTicks, err := measure(ctx, pid, cfg.Duration)
		if err != nil {
			return nil, err
		}
		topTicks += all
		topCtl += ctlTicks
		if hwm, err := world.ProcStatusKB(pid, "VmHWM"); err == nil {
			rep.HWMKB = max(rep.HWMKB, hwm)
		} else {
			return nil, err
		}
		if err := respawn(ctx, w, srv, pane, cfg.Settle, "status -w", "mate-01", bin, "status", "-w", "--team", team); err != nil {
			return nil, err
		}
		if pid, err = panePID(ctx, srv, pane); err != nil {
			return nil, err
		}
		fmt.Fprintf(log, "window %d/%d: status -w (pid %d), %s\n", 2*r+2, 2*cfg.Rounds, pid, cfg.Duration)
		if all, _, err = measure(ctx, pid, cfg.Duration); err != nil {
			return nil, err
		}
		watchTicks += all
	}
	sec := func(t int64) float64 { return float64(t) / float64(hz) }
	span := cfg.Duration.Seconds() * float64(cfg.Rounds)
	rep.TopCPU, rep.TopControlCPU, rep.WatchCPU = sec(topTicks), sec(topCtl), sec(watchTicks)
	rep.TopCore, rep.WatchCore = 100*rep.TopCPU/span, 100*rep.WatchCPU/span
	if rep.WatchCPU > 0 {
		rep.Ratio = rep.TopCPU / rep.WatchCPU
	}
	rep.Pass = rep.P95 < targetP95 && rep.TopCore < targetCore && rep.HWMKB < targetKB
	return rep, nil
}

// latency writes cfg.Samples changes and times each until it is on screen.
func latency(ctx context.Context, cfg Config, srv *tmux.Server, pane string, rep *Report) error {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	ctl, err := srv.ControlWith(cctx, "=v", tmux.ControlOptions{Coalesce: time.Nanosecond}) // the viewer's output as it comes: the measure's own clock
	cancel()
	if err != nil {
		return err
	}
	defer ctl.Close()
	evlog, err := state.OpenEventLog(team)
	if err != nil {
		return err
	}
	defer evlog.Close()
	for i := range cfg.Samples {
		if err := world.Sleep(ctx, cfg.Pace+rand.N(cfg.Pace*2/3+1)); err != nil { // pacing between samples
			return err
		}
		for len(ctl.Notes()) > 0 {
			<-ctl.Notes() // what top drew before this change
		}
		var seen *regexp.Regexp
		var t0 time.Time
		if i%2 == 0 {
			mark := fmt.Sprintf("bench-mark-%04d", i)
			seen = regexp.MustCompile(`mate-01 message ` + mark)
			t0 = time.Now()
			if err := evlog.Append(state.Event{Kind: state.EventMessage, Member: "mate-01", Detail: mark}); err != nil {
				return err
			}
		} else {
			n := 1000 + i
			seen = regexp.MustCompile(`(?m)mate-01 .* ` + strconv.Itoa(n) + `( |$)`)
			lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			unlock, err := state.Lock(lctx, team)
			cancel()
			if err != nil {
				return err
			}
			st, err := state.Load(team)
			if err == nil {
				m, ok := st.Member("mate-01")
				if !ok {
					err = errors.New("no mate-01 in state.json")
				} else {
					m.Restarts = n
					t0 = time.Now()
					err = state.Save(st)
				}
			}
			unlock()
			if err != nil {
				return err
			}
		}
		d, err := until(ctx, ctl, pane, seen, t0)
		if err != nil {
			return fmt.Errorf("change %d: %w", i, err)
		}
		ms := float64(d) / float64(time.Millisecond)
		if i%2 == 0 {
			rep.EventMS = append(rep.EventMS, ms)
		} else {
			rep.StateMS = append(rep.StateMS, ms)
		}
	}
	return nil
}

// until waits for the output of pane after which its screen matches seen, and
// returns when that output came, after t0.
func until(ctx context.Context, ctl *tmux.Control, pane string, seen *regexp.Regexp, t0 time.Time) (time.Duration, error) {
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-timeout.C:
			return 0, fmt.Errorf("not on screen after 10s (%s)", seen)
		case n, ok := <-ctl.Notes():
			if !ok {
				return 0, errors.New("the viewer's control client ended")
			}
			if n.Kind != "output" || n.Pane != pane {
				continue
			}
			at := time.Now()
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			lines, err := ctl.Command(cctx, "capture-pane", "-p", "-t", pane)
			cancel()
			if err != nil {
				return 0, err
			}
			if seen.MatchString(strings.Join(lines, "\n")) {
				return at.Sub(t0), nil
			}
		}
	}
}

// respawn runs argv in the viewer's pane instead of what runs there, and
// waits until its screen shows want, then lets its start-up pass (settle).
func respawn(ctx context.Context, w *world.World, srv *tmux.Server, pane string, settle time.Duration, what, want string, argv ...string) error {
	if len(argv) == 0 {
		return world.Sleep(ctx, settle) // nothing new: let the last thing done pass
	}
	if out, err := w.TmuxOn(ctx, viewer, append([]string{"respawn-pane", "-k", "-t", pane}, argv...)...); err != nil {
		return fmt.Errorf("start %s: %v: %s", what, err, out)
	}
	if err := waitScreen(ctx, srv, pane, want, 30*time.Second); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return world.Sleep(ctx, settle) // its start-up is not what is measured
}

func waitScreen(ctx context.Context, srv *tmux.Server, pane, want string, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		out, err := srv.Run(ctx, "capture-pane", "-p", "-t", pane)
		if err == nil && strings.Contains(out, want) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%q not on the viewer's screen after %s:\n%s", want, d, out)
		}
		if err := world.Sleep(ctx, 100*time.Millisecond); err != nil { // poll interval
			return err
		}
	}
}

func panePID(ctx context.Context, srv *tmux.Server, pane string) (int, error) {
	out, err := srv.Run(ctx, "display-message", "-p", "-t", pane, "#{pane_pid}")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(out))
}

// measure returns the clock ticks pid and its children (reaped or alive) used
// during d, and those of its live children alone.
func measure(ctx context.Context, pid int, d time.Duration) (all, kids int64, err error) {
	a0, k0, err := ticks(pid)
	if err != nil {
		return 0, 0, err
	}
	if err := world.Sleep(ctx, d); err != nil {
		return 0, 0, err
	}
	a1, k1, err := ticks(pid)
	if err != nil {
		return 0, 0, fmt.Errorf("process %d went during the window: %w", pid, err)
	}
	return a1 - a0, k1 - k0, nil
}

// ticks is utime+stime+cutime+cstime of pid plus that of its live children,
// and the children's part.
func ticks(pid int) (all, kids int64, err error) {
	own, err := statTicks(pid)
	if err != nil {
		return 0, 0, err
	}
	for _, c := range world.Children(pid) {
		if t, err := statTicks(c); err == nil {
			kids += t
		}
	}
	return own + kids, kids, nil
}

// statTicks is utime+stime+cutime+cstime of pid.
func statTicks(pid int) (int64, error) {
	st, err := proc.ReadStat(pid)
	if err != nil {
		return 0, err
	}
	return st.UTime + st.STime + st.CUTime + st.CSTime, nil
}

// percentiles are the p50, p95 and max of ms.
func percentiles(ms []float64) (p50, p95, top float64) {
	if len(ms) == 0 {
		return 0, 0, 0
	}
	return world.Percentile(ms, 50), world.Percentile(ms, 95), slices.Max(ms)
}

// Print prints r for a reader (what the command prints without -json).
func Print(out io.Writer, r *Report) {
	verdict := func(ok bool) string {
		if ok {
			return "PASS"
		}
		return "FAIL"
	}
	fmt.Fprintf(out, "\nteamctl top: %d members (stand-in) printing %d lines/s each; top in a 100x30 tmux pane\n", r.Members, r.Rate)
	fmt.Fprintf(out, "write to the team folder → on screen, %d changes (%d events, %d state.json):\n", len(r.EventMS)+len(r.StateMS), len(r.EventMS), len(r.StateMS))
	for _, k := range []struct {
		name string
		ms   []float64
	}{{"events.jsonl", r.EventMS}, {"state.json", r.StateMS}} {
		p50, p95, top := percentiles(k.ms)
		fmt.Fprintf(out, "  %-12s  p50 %6.1f ms  p95 %6.1f ms  max %6.1f ms\n", k.name, p50, p95, top)
	}
	fmt.Fprintf(out, "  all           p50 %6.1f ms  p95 %6.1f ms  max %6.1f ms  (target p95 < %.0f ms) %s\n", r.P50, r.P95, r.Max, r.TargetP95, verdict(r.P95 < r.TargetP95))
	fmt.Fprintf(out, "CPU, %d window(s) of %.0fs each, in turn (clock ticks %d/s, %s):\n", r.Rounds, r.WindowS, r.ClockTicks, r.ClockTicksFrom)
	fmt.Fprintf(out, "  teamctl top        %6.2f s  %5.2f%% of one core (its tmux -C client %.2f s)  (target < %.0f%%) %s\n",
		r.TopCPU, r.TopCore, r.TopControlCPU, r.TargetCore, verdict(r.TopCore < r.TargetCore))
	fmt.Fprintf(out, "  teamctl status -w  %6.2f s  %5.2f%% of one core\n", r.WatchCPU, r.WatchCore)
	fmt.Fprintf(out, "  top / status -w    %.2fx\n", r.Ratio)
	fmt.Fprintf(out, "top's VmHWM %.1f MiB  (target < %d MiB) %s\n", float64(r.HWMKB)/1024, r.TargetKB>>10, verdict(r.HWMKB < r.TargetKB))
}
