// Command rss measures the supervisor's peak resident memory with a big, busy
// team whose every member ends up asking a question:
//
//	go run ./bench/rss                 # 32 members, 50 lines/s each for 10s, then a question each
//	go run ./bench/rss -members 8 -print 5s -json
//
// It brings up one team in a fresh world (its own HOME, CLAUDE_CONFIG_DIR,
// XDG_STATE_HOME and TMUX_TMPDIR, so never the user's tmux server): a lead and
// members-1 teammates, all teamctl's stand-in agent running
// lines:RATE:PRINT,prompt-at:FILE. So the supervisor follows members*RATE
// lines a second for PRINT, then every member asks "Overwrite? (y/n)" and the
// supervisor captures every pane and reports each stall. Once it has reported
// all of them, the benchmark reads VmHWM (peak resident set) and VmRSS from
// the supervisor's /proc/PID/status. The target is VmHWM < 40 MiB; the exit
// status is 1 when it is missed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/teamctl/teamctl/bench/internal/world"
	"github.com/teamctl/teamctl/state"
)

const (
	targetKB = 40 << 10 // VmHWM, kB (40 MiB)
	team     = "rss"
)

type config struct {
	members, rate int
	print, quiet  time.Duration
}

// Report is the whole result, as -json prints it.
type Report struct {
	Members  int     `json:"members"`
	Rate     int     `json:"lines_per_second_each"`
	PrintS   float64 `json:"print_s"`
	Stalls   int     `json:"stalls"`
	HWMKB    int64   `json:"vm_hwm_kb"`
	RSSKB    int64   `json:"vm_rss_kb"`
	TargetKB int64   `json:"target_vm_hwm_kb"`
	Pass     bool    `json:"pass"`
}

func main() {
	var cfg config
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.IntVar(&cfg.members, "members", 32, "team size: a lead and members-1 teammates")
	flag.IntVar(&cfg.rate, "rate", 50, "lines a second each member prints")
	flag.DurationVar(&cfg.print, "print", 10*time.Second, "how long each member prints before its question")
	flag.DurationVar(&cfg.quiet, "quiet", 2*time.Second, "the layout's watchdog.quiet")
	flag.Parse()
	world.Main("bench/rss", *asJSON, func(ctx context.Context, log io.Writer) (*Report, error) { return run(ctx, cfg, log) }, printReport)
}

// Passed is whether r meets the target(s).
func (r *Report) Passed() bool { return r.Pass }

func run(ctx context.Context, cfg config, log io.Writer) (*Report, error) {
	if cfg.members < 1 || cfg.rate < 1 || cfg.print <= 0 || cfg.quiet <= 0 {
		return nil, errors.New("need -members >= 1, -rate >= 1, -print > 0, -quiet > 0")
	}
	fmt.Fprintln(log, "building teamctl")
	bin, remove, err := world.Build(ctx)
	if err != nil {
		return nil, err
	}
	defer remove()
	w, err := world.New(bin, team)
	if err != nil {
		return nil, err
	}
	defer w.Destroy()
	names := world.Names(cfg.members)
	var members []world.Member
	for i, name := range names {
		file := filepath.Join(w.Dir, fmt.Sprint(i)) // short (see world.Build); no ':' or ','
		members = append(members, world.Member{Name: name, Script: fmt.Sprintf("lines:%d:%s,prompt-at:%s", cfg.rate, cfg.print, file)})
	}
	fmt.Fprintf(log, "bringing up %d members; they print for %s, then ask\n", cfg.members, cfg.print)
	if err := w.Up(ctx, cfg.quiet, members); err != nil {
		return nil, err
	}
	pid, _, err := w.WaitSupervisor(ctx, 20*time.Second)
	if err != nil {
		return nil, err
	}
	stalls, err := w.FirstEvents(ctx, cfg.print+cfg.quiet+time.Minute, state.EventStall, names)
	if err != nil {
		return nil, err
	}
	rep := &Report{Members: cfg.members, Rate: cfg.rate, PrintS: cfg.print.Seconds(), Stalls: len(stalls), TargetKB: targetKB}
	kb, err := world.ProcStatusKBs(pid, "VmHWM", "VmRSS")
	if err != nil {
		return nil, err
	}
	rep.HWMKB, rep.RSSKB = kb["VmHWM"], kb["VmRSS"]
	rep.Pass = rep.HWMKB < targetKB
	return rep, nil
}

func printReport(out io.Writer, r *Report) {
	fmt.Fprintf(out, "\nsupervisor memory: %d members (stand-in) printing %d lines/s each for %.0fs, then %d stalls reported\n",
		r.Members, r.Rate, r.PrintS, r.Stalls)
	fmt.Fprintf(out, "VmRSS now %.1f MiB\n", float64(r.RSSKB)/1024)
	verdict := "PASS"
	if !r.Pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(out, "VmHWM %.1f MiB  (target < %d MiB) %s\n", float64(r.HWMKB)/1024, r.TargetKB>>10, verdict)
}
