// Package usagebench is bench/usage: the first read of a team's worth of
// generated transcripts (internal/transcriptgen) by usage.Meter, against
// ccusage on the same files in the same run, interleaved, with the same
// totals checked.
package usagebench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/teamctl/teamctl/internal/bench/world"
	"github.com/teamctl/teamctl/internal/transcriptgen"
	"github.com/teamctl/teamctl/usage"
)

// Config is what the benchmark reads.
type Config struct {
	MB      int    // megabytes of transcripts to generate
	Rounds  int    // timed rounds
	Warmup  int    // untimed rounds first
	CCUsage string // the ccusage binary; "" for none (teamctl alone, no ratio)
}

// Targets.
const (
	TargetMBps  = 150.0
	TargetRatio = 0.3
)

// Report is the benchmark's result.
type Report struct {
	Bytes    int64         `json:"bytes"`
	Sessions int           `json:"sessions"`
	Rounds   int           `json:"rounds"`
	Variants []world.Stats `json:"variants"`
	MBps     float64       `json:"teamctl_mb_per_s"`
	Ratio    float64       `json:"ratio_teamctl_ccusage"` // 0 without ccusage
	Same     bool          `json:"same_totals"`
	Pass     bool          `json:"pass"`
}

// Passed reports whether every target was met.
func (r *Report) Passed() bool { return r.Pass }

// Run generates the transcripts (untimed) and times the variants.
func Run(ctx context.Context, cfg Config, log io.Writer) (*Report, error) {
	cfgDir, err := os.MkdirTemp("", "usagebench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(cfgDir)
	// About 3.3 MB per session of 100 turns with 8 KB of tool output each
	// (twice: the tool_result and toolUseResult) and a subagent of 51.
	sessions := max(1, cfg.MB*10/33)
	fmt.Fprintf(log, "writing about %d MB of transcripts (%d sessions)…\n", cfg.MB, sessions)
	ss, err := transcriptgen.Write(cfgDir, transcriptgen.Options{Seed: 1, Sessions: sessions, Turns: 100, Subagents: 1, PaddingBytes: 8000,
		Models: []string{"claude-sonnet-4-5", "claude-opus-4-5", "claude-haiku-4-5"}})
	if err != nil {
		return nil, err
	}
	var bytes int64
	filepath.Walk(filepath.Join(cfgDir, "projects"), func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			bytes += fi.Size()
		}
		return nil
	})
	ids := make([]string, len(ss))
	for i, s := range ss {
		ids[i] = s.ID
	}
	variants := []world.Variant{{Name: "teamctl", How: "usage.Meter per session, first Update, one per processor at a time (usage.UpdateAll, as usage.ForTeam), in process"}}
	if cfg.CCUsage != "" {
		variants = append(variants, world.Variant{Name: "ccusage", How: "ccusage claude session --json --offline"})
	}
	var ours, theirs int64 // output tokens, as a check
	stats, err := world.Rounds(ctx, log, variants, cfg.Warmup, cfg.Rounds, func(ctx context.Context, i int) (time.Duration, error) {
		start := time.Now()
		if i == 0 {
			var out int64
			meters := make([]*usage.Meter, len(ids))
			for i, id := range ids {
				m, err := usage.NewMeter(cfgDir, []string{id}, nil, time.Time{})
				if err != nil {
					return 0, err
				}
				meters[i] = m
			}
			// As usage.ForTeam reads a team's members (one per processor).
			totals, _ := usage.UpdateAll(meters, runtime.GOMAXPROCS(0))
			for _, t := range totals {
				out += t.Output
			}
			ours = out
			return time.Since(start), nil
		}
		cctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(cctx, cfg.CCUsage, "claude", "session", "--json", "--offline")
		cmd.Env = []string{"CLAUDE_CONFIG_DIR=" + cfgDir, "HOME=" + cfgDir, "PATH=" + os.Getenv("PATH"), "TZ=UTC"}
		b, err := cmd.Output()
		if err != nil {
			return 0, fmt.Errorf("ccusage: %w", err)
		}
		d := time.Since(start)
		var r struct {
			Sessions []struct{ OutputTokens int64 }
		}
		if err := json.Unmarshal(b, &r); err != nil {
			return 0, fmt.Errorf("ccusage's JSON: %w", err)
		}
		theirs = 0
		for _, s := range r.Sessions {
			theirs += s.OutputTokens
		}
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	rep := &Report{Bytes: bytes, Sessions: len(ss), Rounds: cfg.Rounds, Variants: stats, Same: true}
	rep.MBps = float64(bytes) / 1e6 / (stats[0].Median / 1000)
	rep.Pass = rep.MBps >= TargetMBps
	if cfg.CCUsage != "" {
		rep.Ratio = stats[0].Median / stats[1].Median
		rep.Same = ours == theirs
		rep.Pass = rep.Pass && rep.Ratio <= TargetRatio && rep.Same
	}
	return rep, nil
}

// Print prints r for a person.
func Print(out io.Writer, r *Report) {
	fmt.Fprintf(out, "\nfirst read of %.0f MB of transcripts (%d sessions, each with a subagent); %d rounds, variants interleaved\n", float64(r.Bytes)/1e6, r.Sessions, r.Rounds)
	fmt.Fprintf(out, "%-8s %9s %9s %9s\n", "variant", "median ms", "p90 ms", "min ms")
	for _, v := range r.Variants {
		fmt.Fprintf(out, "%-8s %9.1f %9.1f %9.1f   %s\n", v.Name, v.Median, v.P90, v.Min, v.How)
	}
	verdict := map[bool]string{true: "PASS", false: "FAIL"}
	fmt.Fprintf(out, "teamctl  %.0f MB/s  (target >= %.0f MB/s)\n", r.MBps, TargetMBps)
	if r.Ratio > 0 {
		fmt.Fprintf(out, "teamctl / ccusage  %.2fx  (target <= %.1fx); same totals: %v\n", r.Ratio, TargetRatio, r.Same)
	} else {
		fmt.Fprintln(out, "no ccusage given (-ccusage or $TEAMCTL_CCUSAGE): no ratio")
	}
	fmt.Fprintln(out, verdict[r.Pass])
}
