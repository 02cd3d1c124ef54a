// Package costbench is the benchmark `go run ./bench/cost` runs; see that command's doc.
package costbench

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/teamctl/teamctl/internal/bench/world"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/state"
)

const (
	// targetRatio is the headline's: what each watcher costs the machine,
	// itself and the extra work of the tmux server (its CPU in the watcher's
	// window less its CPU with no watcher), supervisor / reference.
	targetRatio = 0.3
	targetCore  = 3.0 // supervisor (with its control client), % of one core
	team        = "cost"
)

// Config is a run's settings: bench/cost's flags, and Bin.
type Config struct {
	Members, Rate   int
	Duration, Every time.Duration
	Quiet           time.Duration
	Settle          time.Duration // after the team prints, before the first window
	// MinRounds: the reference watcher's window lasts until it has made this
	// many rounds of captures, however long that takes (the smoke test's
	// count of what was asked, not of what fits in a time); 0 for none.
	MinRounds int
	Bin       string // a teamctl binary already built; "" builds one for the run (see world.Teamctl)
	// Transcripts is how many bytes a second each of the first
	// TranscriptMembers members' Claude Code transcripts grow in a window of
	// its own (transcripts.go); 0 for no such window. FollowedMB is how much
	// is appended to them afterwards, for the supervisor's peak RSS; 0 for
	// none.
	Transcripts, TranscriptMembers, FollowedMB int
}

// Report is the whole result, as -json prints it. CPU figures are seconds.
type Report struct {
	Members        int      `json:"members"`
	Rate           int      `json:"lines_per_second_each"`
	WindowS        float64  `json:"window_s"`
	ClockTicks     int64    `json:"clock_ticks_per_s"`
	ClockTicksFrom string   `json:"clock_ticks_from"`
	SupervisorCPU  float64  `json:"supervisor_cpu_s"`       // the supervisor process
	ControlCPU     float64  `json:"control_client_cpu_s"`   // its tmux -C child
	SupervisorAll  float64  `json:"supervisor_total_cpu_s"` // both
	ReferenceCPU   float64  `json:"reference_cpu_s"`
	ReferenceSelf  float64  `json:"reference_self_cpu_s"`
	ReferenceKids  float64  `json:"reference_children_cpu_s"`
	Captures       int      `json:"reference_captures"`
	ServerCPU      struct { // the team's tmux server, in each window
		Supervisor float64 `json:"supervisor_window"`
		Reference  float64 `json:"reference_window"`
		None       float64 `json:"no_watcher_window"`
	} `json:"tmux_server_cpu_s"`
	// WallS is how long each window lasted by the wall clock (a window
	// ends at its deadline, or, for the reference, once its rounds are made).
	WallS struct {
		Supervisor float64 `json:"supervisor_window"`
		Reference  float64 `json:"reference_window"`
		None       float64 `json:"no_watcher_window"`
	} `json:"wall_s"`
	// Lines are how many lines the members printed in each window.
	Lines struct {
		Supervisor int `json:"supervisor_window"`
		Reference  int `json:"reference_window"`
		None       int `json:"no_watcher_window"`
	} `json:"lines_printed"`
	// What each watcher costs the machine: its own CPU and what the tmux
	// server did beyond its CPU with no watcher for as many lines.
	SupervisorCost float64 `json:"supervisor_cost_cpu_s"`
	ReferenceCost  float64 `json:"reference_cost_cpu_s"`
	// The transcripts' window (Config.Transcripts): the supervisor's CPU
	// while the members print and their transcripts grow, what that adds to
	// window 1's, the bytes written and the responses it counted.
	Transcripts *TranscriptReport `json:"transcripts,omitempty"`
	Ratio       float64           `json:"ratio_supervisor_reference"` // of the costs, the server's share counted: the headline
	// ProcessRatio leaves the server out: the watchers' own processes alone.
	ProcessRatio float64 `json:"ratio_processes_alone"`
	CorePercent  float64 `json:"supervisor_core_percent"`
	TargetRatio  float64 `json:"target_ratio"`
	TargetCore   float64 `json:"target_core_percent"`
	Pass         bool    `json:"pass"`
}

// TranscriptReport is the transcripts' window and the RSS check after it.
type TranscriptReport struct {
	Members        int     `json:"members"`
	BytesPerSecond int     `json:"bytes_per_second_each"`
	Written        int64   `json:"bytes_written"`
	Responses      int     `json:"responses_counted"`
	SupervisorAll  float64 `json:"supervisor_total_cpu_s"`       // in the windows with transcripts growing
	StillAll       float64 `json:"supervisor_still_total_cpu_s"` // in those between, transcripts still
	AddedPercent   float64 `json:"added_core_percent"`
	TargetPercent  float64 `json:"target_added_core_percent"`
	FollowedMB     int64   `json:"followed_mb,omitempty"` // all that was followed, the window's included
	FollowS        float64 `json:"follow_s,omitempty"`    // how long counting the appended MB took
	VmHWMKB        int64   `json:"vm_hwm_kb,omitempty"`
	VmRSSKB        int64   `json:"vm_rss_kb,omitempty"`
	TargetRSSKB    int64   `json:"target_vm_hwm_kb,omitempty"`
}

// ServerExtra is what the tmux server did in a watcher's window (cpu
// seconds, lines printed) beyond what it does unwatched for as many lines.
func (r *Report) ServerExtra(cpu float64, lines int) float64 {
	if r.Lines.None <= 0 {
		return cpu
	}
	return cpu - r.ServerCPU.None*float64(lines)/float64(r.Lines.None)
}

// Passed is whether r meets the target(s).
func (r *Report) Passed() bool { return r.Pass }

// Run builds teamctl (unless cfg.Bin is one) and measures; progress goes to log.
func Run(ctx context.Context, cfg Config, log io.Writer) (*Report, error) {
	if cfg.Members < 1 || cfg.Rate < 1 || cfg.Duration <= 0 || cfg.Every <= 0 || cfg.Settle < 0 {
		return nil, errors.New("need -members >= 1, -rate >= 1, -duration > 0, -every > 0, -settle >= 0")
	}
	bin, remove, err := world.Teamctl(ctx, log, cfg.Bin)
	if err != nil {
		return nil, err
	}
	defer remove()
	hz, how := world.ClockTicks(ctx)
	rep := &Report{Members: cfg.Members, Rate: cfg.Rate, WindowS: cfg.Duration.Seconds(),
		ClockTicks: hz, ClockTicksFrom: how, TargetRatio: targetRatio, TargetCore: targetCore}

	w, err := world.New(bin, team)
	if err != nil {
		return nil, err
	}
	defer w.Destroy()
	// Print for longer than everything that follows (the transcripts' part
	// and its RSS check take minutes on a busy machine); the team is torn
	// down after. Each window checks that every pane printed during it.
	script := fmt.Sprintf("lines:%d:%s", cfg.Rate, 6*cfg.Duration+20*time.Minute)
	var members []world.Member
	for _, name := range world.Names(cfg.Members) {
		members = append(members, world.Member{Name: name, Script: script})
	}
	fmt.Fprintf(log, "bringing up %d members\n", cfg.Members)
	if err := w.Up(ctx, cfg.Quiet, members); err != nil {
		return nil, err
	}
	sup, _, err := w.WaitSupervisor(ctx, 20*time.Second)
	if err != nil {
		return nil, err
	}
	panes, server, err := waitPrinting(ctx, w, cfg.Members)
	if err != nil {
		return nil, err
	}
	if err := world.Sleep(ctx, cfg.Settle); err != nil { // let the supervisor's start-up captures pass
		return nil, err
	}

	// 1. The supervisor alone.
	kids := world.Children(sup)
	if len(kids) != 1 {
		return nil, fmt.Errorf("supervisor %d has children %v, want its one tmux control client", sup, kids)
	}
	fmt.Fprintf(log, "window 1/3: supervisor (pid %d, control client %d), %s\n", sup, kids[0], cfg.Duration)
	shown, err := screens(ctx, w, panes)
	if err != nil {
		return nil, err
	}
	ticks, wall, err := measure(ctx, cfg.Duration, nil, sup, kids[0], server)
	if err != nil {
		return nil, err
	}
	if rep.Lines.Supervisor, err = printed(ctx, w, panes, shown, "supervisor"); err != nil {
		return nil, err
	}
	rep.WallS.Supervisor = wall.Seconds()
	sec := func(t int64) float64 { return float64(t) / float64(hz) }
	rep.SupervisorCPU, rep.ControlCPU, rep.ServerCPU.Supervisor = sec(ticks[0]), sec(ticks[1]), sec(ticks[2])
	rep.SupervisorAll = rep.SupervisorCPU + rep.ControlCPU
	if cfg.Transcripts > 0 {
		tr, err := transcriptWindow(ctx, cfg, w, log, sup, kids[0], server, hz)
		if err != nil {
			return nil, err
		}
		rep.Transcripts = tr
	}
	if err := stopSupervisor(ctx, sup); err != nil {
		return nil, err
	}

	// 2. The reference watcher alone.
	fmt.Fprintf(log, "window 2/3: reference (capture-pane of %d panes every %s), %s\n", len(panes), cfg.Every, cfg.Duration)
	var self0, kids0, self1, kids1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self0)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids0)
	ref := func(wctx context.Context) error {
		n, err := reference(ctx, wctx, w, panes, cfg.Every, cfg.MinRounds)
		rep.Captures = n
		return err
	}
	if shown, err = screens(ctx, w, panes); err != nil {
		return nil, err
	}
	ticks, wall, err = measure(ctx, cfg.Duration, ref, server)
	if err != nil {
		return nil, err
	}
	if rep.Lines.Reference, err = printed(ctx, w, panes, shown, "reference"); err != nil {
		return nil, err
	}
	rep.WallS.Reference = wall.Seconds()
	syscall.Getrusage(syscall.RUSAGE_SELF, &self1)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids1)
	rep.ReferenceSelf, rep.ReferenceKids = cpu(self1)-cpu(self0), cpu(kids1)-cpu(kids0)
	rep.ReferenceCPU = rep.ReferenceSelf + rep.ReferenceKids
	rep.ServerCPU.Reference = sec(ticks[0])

	// 3. Nobody watching.
	fmt.Fprintf(log, "window 3/3: no watcher, %s\n", cfg.Duration)
	if shown, err = screens(ctx, w, panes); err != nil {
		return nil, err
	}
	if ticks, wall, err = measure(ctx, cfg.Duration, nil, server); err != nil {
		return nil, err
	}
	if rep.Lines.None, err = printed(ctx, w, panes, shown, "no watcher"); err != nil {
		return nil, err
	}
	rep.ServerCPU.None = sec(ticks[0])
	rep.WallS.None = wall.Seconds()

	// What the server does with no watcher is reading the panes' output:
	// its CPU per line printed, times the lines of a watcher's window, is
	// what it would have done in that window unwatched (a busy machine slows
	// the members, and the reference's window may last longer: the same
	// work, not the same seconds).
	rep.SupervisorCost = rep.SupervisorAll + rep.ServerExtra(rep.ServerCPU.Supervisor, rep.Lines.Supervisor)
	rep.ReferenceCost = rep.ReferenceCPU + rep.ServerExtra(rep.ServerCPU.Reference, rep.Lines.Reference)
	if rep.ReferenceCost > 0 {
		rep.Ratio = rep.SupervisorCost / rep.ReferenceCost
	}
	rep.ProcessRatio = rep.SupervisorAll / rep.ReferenceCPU
	rep.CorePercent = 100 * rep.SupervisorAll / rep.WallS.Supervisor
	rep.Pass = rep.ReferenceCost > 0 && rep.Ratio <= targetRatio && rep.CorePercent < targetCore
	if t := rep.Transcripts; t != nil {
		rep.Pass = rep.Pass && t.AddedPercent < t.TargetPercent && (t.TargetRSSKB == 0 || t.VmHWMKB < t.TargetRSSKB)
	}
	return rep, nil
}

// waitPrinting waits until every one of the team's panes has printed a log
// line (below the stand-in's two header lines, or into the history), and
// returns their IDs and the tmux server's pid.
func waitPrinting(ctx context.Context, w *world.World, members int) ([]string, int, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := w.Tmux(ctx, "list-panes", "-s", "-t", "="+team, "-F", "#{pid} #{pane_id} #{history_size} #{cursor_y}")
		if err != nil {
			return nil, 0, fmt.Errorf("list panes: %v: %s", err, out)
		}
		var panes []string
		server, printing := 0, 0
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			f := strings.Fields(line)
			if len(f) != 4 {
				return nil, 0, fmt.Errorf("list panes: %q", line)
			}
			server, _ = strconv.Atoi(f[0])
			panes = append(panes, f[1])
			if y, _ := strconv.Atoi(f[3]); f[2] != "0" || y > 2 {
				printing++
			}
		}
		if len(panes) == members && printing == members {
			return panes, server, nil
		}
		if time.Now().After(deadline) {
			return nil, 0, fmt.Errorf("%d of %d panes printing after 30s", printing, len(panes))
		}
		if err := world.Sleep(ctx, 100*time.Millisecond); err != nil { // poll interval
			return nil, 0, err
		}
	}
}

// logLine is a stand-in's line of log output: its number is the count of
// lines it printed.
var logLine = regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d{3} (?:build step|test shard|fetched chunk|compiled unit) (\d+) `)

// lastLine is the number of the last log line on a screen (0: none).
func lastLine(screen string) int {
	n := 0
	for _, m := range logLine.FindAllStringSubmatch(screen, -1) {
		if v, _ := strconv.Atoi(m[1]); v > n {
			n = v
		}
	}
	return n
}

// screens are what the panes show now (each numbers its lines).
func screens(ctx context.Context, w *world.World, panes []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range panes {
		s, err := w.Tmux(ctx, "capture-pane", "-p", "-t", p)
		if err != nil {
			return nil, fmt.Errorf("capture %s: %v: %s", p, err, s)
		}
		out[p] = s
	}
	return out, nil
}

// printed is how many lines the panes printed during the window named,
// from what they showed before it (before) and show now. A pane that
// printed nothing is an error: the window would have measured a team less
// busy than the others'.
func printed(ctx context.Context, w *world.World, panes []string, before map[string]string, window string) (int, error) {
	after, err := screens(ctx, w, panes)
	if err != nil {
		return 0, err
	}
	lines := 0
	for _, p := range panes {
		if after[p] == before[p] {
			return 0, fmt.Errorf("pane %s printed nothing during the %s window (its script ended? too slow a machine for -rate)", p, window)
		}
		lines += lastLine(after[p]) - lastLine(before[p])
	}
	return lines, nil
}

// measure returns how many clock ticks each of pids used during d, while work
// (when not nil) runs, and how long that took by the wall clock; work is
// stopped at the end of d and waited for.
func measure(ctx context.Context, d time.Duration, work func(context.Context) error, pids ...int) ([]int64, time.Duration, error) {
	before := make([]int64, len(pids))
	for i, pid := range pids {
		t, err := world.CPUTicks(pid)
		if err != nil {
			return nil, 0, err
		}
		before[i] = t
	}
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	done := make(chan error, 1)
	if work != nil {
		go func() { done <- work(wctx) }()
	} else {
		close(done)
	}
	<-wctx.Done()
	if err := <-done; err != nil {
		return nil, 0, err
	}
	if ctx.Err() != nil {
		return nil, 0, ctx.Err()
	}
	out := make([]int64, len(pids))
	for i, pid := range pids {
		t, err := world.CPUTicks(pid)
		if err != nil {
			return nil, 0, fmt.Errorf("process %d went during the window: %w", pid, err)
		}
		out[i] = t - before[i]
	}
	return out, time.Since(start), nil
}

// reference is claude-squad's way of watching: every interval, for each pane in
// turn, a `tmux capture-pane -p -J -t PANE` process, and a hash of the screen
// to tell whether it changed. It goes on until its window ends, and until it
// made minRounds rounds, and returns how many captures it made.
func reference(ctx, window context.Context, w *world.World, panes []string, every time.Duration, minRounds int) (int, error) {
	last := map[string][sha256.Size]byte{}
	tick := time.NewTicker(every)
	defer tick.Stop()
	n := 0
	for round := 0; ; round++ {
		// Until the rounds asked for are made, the window's end does not
		// count; after, it ends the round, a capture on its way included.
		in := window
		if round < minRounds {
			in = ctx
		}
		select {
		case <-in.Done():
			return n, nil
		case <-tick.C:
		}
		for _, p := range panes {
			cctx, cancel := context.WithTimeout(in, 5*time.Second)
			cmd := exec.CommandContext(cctx, "tmux", "-L", state.SocketName(team), "capture-pane", "-p", "-J", "-t", p)
			cmd.Env = w.Env
			out, err := cmd.Output()
			cancel()
			if in.Err() != nil {
				return n, nil
			}
			if err != nil {
				return n, fmt.Errorf("capture-pane -t %s: %w", p, err)
			}
			n++
			if h := sha256.Sum256(out); h != last[p] {
				last[p] = h // claude-squad marks the instance as updated here
			}
		}
	}
}

// stopSupervisor ends the supervisor with SIGTERM (by its pid) and waits until
// it and its control client are gone.
func stopSupervisor(ctx context.Context, pid int) error {
	kids := world.Children(pid)
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("stop the supervisor: %w", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range append(kids, pid) {
		for proc.Alive(p) {
			if time.Now().After(deadline) {
				return fmt.Errorf("process %d still there 10s after SIGTERM to the supervisor", p)
			}
			if err := world.Sleep(ctx, 10*time.Millisecond); err != nil { // poll interval
				return err
			}
		}
	}
	return nil
}

func cpu(r syscall.Rusage) float64 {
	return float64(r.Utime.Nano()+r.Stime.Nano()) / 1e9
}

// Print prints r for a reader (what the command prints without -json).
func Print(out io.Writer, r *Report) {
	pct := func(s, wall float64) float64 { return 100 * s / wall }
	fmt.Fprintf(out, "\nwatcher CPU: %d members (stand-in) printing %d lines/s each (%d lines/s in all), windows of %.0fs in sequence on one team\n",
		r.Members, r.Rate, r.Members*r.Rate, r.WindowS)
	fmt.Fprintf(out, "clock ticks: %d/s (%s); CPU is processor seconds (utime+stime), wall the window's length by the clock\n", r.ClockTicks, r.ClockTicksFrom)
	fmt.Fprintf(out, "%-42s %7s %7s %8s %7s %12s %11s %9s\n", "", "wall s", "lines/s", "CPU s", "% core", "tmux server", "its extra", "cost s")
	rate := func(lines int, wall float64) float64 { return float64(lines) / wall }
	fmt.Fprintf(out, "%-42s %7.2f %7.0f %8.2f %6.2f%% %11.2fs %10.2fs %9.2f\n", "supervisor + its tmux -C client", r.WallS.Supervisor, rate(r.Lines.Supervisor, r.WallS.Supervisor),
		r.SupervisorAll, pct(r.SupervisorAll, r.WallS.Supervisor), r.ServerCPU.Supervisor, r.ServerExtra(r.ServerCPU.Supervisor, r.Lines.Supervisor), r.SupervisorCost)
	fmt.Fprintf(out, "%-42s %7s %7s %8.2f %6.2f%%\n", "  supervisor process", "", "", r.SupervisorCPU, pct(r.SupervisorCPU, r.WallS.Supervisor))
	fmt.Fprintf(out, "%-42s %7s %7s %8.2f %6.2f%%\n", "  tmux -C control client", "", "", r.ControlCPU, pct(r.ControlCPU, r.WallS.Supervisor))
	fmt.Fprintf(out, "%-42s %7.2f %7.0f %8.2f %6.2f%% %11.2fs %10.2fs %9.2f\n", fmt.Sprintf("reference (%d capture-pane processes)", r.Captures), r.WallS.Reference, rate(r.Lines.Reference, r.WallS.Reference),
		r.ReferenceCPU, pct(r.ReferenceCPU, r.WallS.Reference), r.ServerCPU.Reference, r.ServerExtra(r.ServerCPU.Reference, r.Lines.Reference), r.ReferenceCost)
	fmt.Fprintf(out, "%-42s %7s %7s %8.2f %6.2f%%\n", "  this process (getrusage self)", "", "", r.ReferenceSelf, pct(r.ReferenceSelf, r.WallS.Reference))
	fmt.Fprintf(out, "%-42s %7s %7s %8.2f %6.2f%%\n", "  its tmux clients (getrusage children)", "", "", r.ReferenceKids, pct(r.ReferenceKids, r.WallS.Reference))
	fmt.Fprintf(out, "%-42s %7.2f %7.0f %8s %7s %11.2fs\n", "no watcher", r.WallS.None, rate(r.Lines.None, r.WallS.None), "", "", r.ServerCPU.None)
	verdict := func(ok bool) string {
		if ok {
			return "PASS"
		}
		return "FAIL"
	}
	fmt.Fprintf(out, "cost = CPU + the tmux server's extra (its CPU less the no-watcher window's for as many lines printed)\n")
	fmt.Fprintf(out, "supervisor / reference  %.2fx of the cost  (target <= %.1fx) %s\n", r.Ratio, r.TargetRatio, verdict(r.ReferenceCost > 0 && r.Ratio <= r.TargetRatio))
	fmt.Fprintf(out, "                        %.2fx of the processes' CPU alone (the server left out)\n", r.ProcessRatio)
	fmt.Fprintf(out, "supervisor CPU          %.2f%% of one core  (target < %.0f%%) %s\n", r.CorePercent, r.TargetCore, verdict(r.CorePercent < r.TargetCore))
	if t := r.Transcripts; t != nil {
		fmt.Fprintf(out, "transcripts: %d members' growing %d B/s each while they print (%d bytes, %d responses counted)\n", t.Members, t.BytesPerSecond, t.Written, t.Responses)
		fmt.Fprintf(out, "supervisor + client     %.2f s with them growing, %.2f s with them still (interleaved windows, %.0f s of each)\n", t.SupervisorAll, t.StillAll, r.WindowS)
		fmt.Fprintf(out, "following them adds     %.2f%% of one core  (target < %.1f%%) %s\n", t.AddedPercent, t.TargetPercent, verdict(t.AddedPercent < t.TargetPercent))
		if t.TargetRSSKB > 0 {
			fmt.Fprintf(out, "with %d MB of transcripts followed (the last %d MB counted in %.1fs): VmHWM %.1f MiB, VmRSS %.1f MiB  (target VmHWM < %d MiB) %s\n",
				t.FollowedMB, t.FollowedMB-(t.Written>>20), t.FollowS, float64(t.VmHWMKB)/1024, float64(t.VmRSSKB)/1024, t.TargetRSSKB>>10, verdict(t.VmHWMKB < t.TargetRSSKB))
		}
	}
}
