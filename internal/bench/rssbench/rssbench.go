// Package rssbench is the benchmark `go run ./bench/rss` runs; see that command's doc.
package rssbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/teamctl/teamctl/internal/bench/world"
	"github.com/teamctl/teamctl/state"
)

const (
	targetKB = 40 << 10 // VmHWM, kB (40 MiB)
	team     = "rss"
)

// Config is a run's settings: bench/rss's flags, and Bin.
type Config struct {
	Members, Rate int
	Print, Quiet  time.Duration
	Bin           string // a teamctl binary already built; "" builds one for the run (see world.Teamctl)
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

// Passed is whether r meets the target(s).
func (r *Report) Passed() bool { return r.Pass }

// Run builds teamctl (unless cfg.Bin is one) and measures; progress goes to log.
func Run(ctx context.Context, cfg Config, log io.Writer) (*Report, error) {
	if cfg.Members < 1 || cfg.Rate < 1 || cfg.Print <= 0 || cfg.Quiet <= 0 {
		return nil, errors.New("need -members >= 1, -rate >= 1, -print > 0, -quiet > 0")
	}
	bin, remove, err := world.Teamctl(ctx, log, cfg.Bin)
	if err != nil {
		return nil, err
	}
	defer remove()
	w, err := world.New(bin, team)
	if err != nil {
		return nil, err
	}
	defer w.Destroy()
	names := world.Names(cfg.Members)
	var members []world.Member
	for i, name := range names {
		file := filepath.Join(w.Dir, fmt.Sprint(i)) // short (see world.Build); no ':' or ','
		members = append(members, world.Member{Name: name, Script: fmt.Sprintf("lines:%d:%s,prompt-at:%s", cfg.Rate, cfg.Print, file)})
	}
	fmt.Fprintf(log, "bringing up %d members; they print for %s, then ask\n", cfg.Members, cfg.Print)
	if err := w.Up(ctx, cfg.Quiet, members); err != nil {
		return nil, err
	}
	pid, _, err := w.WaitSupervisor(ctx, 20*time.Second)
	if err != nil {
		return nil, err
	}
	stalls, err := w.FirstEvents(ctx, cfg.Print+cfg.Quiet+time.Minute, state.EventStall, names)
	if err != nil {
		return nil, err
	}
	rep := &Report{Members: cfg.Members, Rate: cfg.Rate, PrintS: cfg.Print.Seconds(), Stalls: len(stalls), TargetKB: targetKB}
	kb, err := world.ProcStatusKBs(pid, "VmHWM", "VmRSS")
	if err != nil {
		return nil, err
	}
	rep.HWMKB, rep.RSSKB = kb["VmHWM"], kb["VmRSS"]
	rep.Pass = rep.HWMKB < targetKB
	return rep, nil
}

// Print prints r for a reader (what the command prints without -json).
func Print(out io.Writer, r *Report) {
	fmt.Fprintf(out, "\nsupervisor memory: %d members (stand-in) printing %d lines/s each for %.0fs, then %d stalls reported\n",
		r.Members, r.Rate, r.PrintS, r.Stalls)
	fmt.Fprintf(out, "VmRSS now %.1f MiB\n", float64(r.RSSKB)/1024)
	verdict := "PASS"
	if !r.Pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(out, "VmHWM %.1f MiB  (target < %d MiB) %s\n", float64(r.HWMKB)/1024, r.TargetKB>>10, verdict)
}
