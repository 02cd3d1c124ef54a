// Package latencybench is the benchmark `go run ./bench/latency` runs; see that command's doc.
package latencybench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/bench/world"
	"github.com/teamctl/teamctl/state"
)

const (
	targetP95 = 250.0 // ms
	team      = "lat"
)

// Config is a run's settings: bench/latency's flags, and Bin.
type Config struct {
	Members, Rounds  int
	Quiet, Base, Gap time.Duration
	Bin              string // a teamctl binary already built; "" builds one for the run (see world.Teamctl)
}

// Report is the whole result, as -json prints it.
type Report struct {
	Members   int       `json:"members"`
	Rounds    int       `json:"rounds"`
	QuietMS   float64   `json:"quiet_ms"`
	P50       float64   `json:"p50_ms"`
	P95       float64   `json:"p95_ms"`
	Max       float64   `json:"max_ms"`
	Min       float64   `json:"min_ms"`
	Samples   []float64 `json:"samples_ms"` // round by round, member by member
	TargetP95 float64   `json:"target_p95_ms"`
	Pass      bool      `json:"pass"`
}

// Passed is whether r meets the target(s).
func (r *Report) Passed() bool { return r.Pass }

// Run builds teamctl (unless cfg.Bin is one) and runs cfg.Rounds rounds; progress goes to log.
func Run(ctx context.Context, cfg Config, log io.Writer) (*Report, error) {
	if cfg.Members < 1 || cfg.Rounds < 1 || cfg.Quiet <= 0 || cfg.Base <= 0 || cfg.Gap < 0 {
		return nil, errors.New("need -members >= 1, -rounds >= 1, -quiet > 0, -base > 0, -gap >= 0")
	}
	bin, remove, err := world.Teamctl(ctx, log, cfg.Bin)
	if err != nil {
		return nil, err
	}
	defer remove()
	rep := &Report{Members: cfg.Members, Rounds: cfg.Rounds, QuietMS: ms(cfg.Quiet), TargetP95: targetP95}
	for r := range cfg.Rounds {
		lat, err := round(ctx, bin, cfg)
		if err != nil {
			return nil, fmt.Errorf("round %d: %w", r+1, err)
		}
		fmt.Fprintf(log, "round %d: p50 %6.1f ms  max %6.1f ms\n", r+1, world.Percentile(lat, 50), slices.Max(lat))
		rep.Samples = append(rep.Samples, lat...)
	}
	rep.P50, rep.P95 = world.Percentile(rep.Samples, 50), world.Percentile(rep.Samples, 95)
	rep.Max, rep.Min = slices.Max(rep.Samples), slices.Min(rep.Samples)
	rep.Pass = rep.P95 < targetP95
	return rep, nil
}

// round brings a team up in a fresh world and returns each member's latency in ms.
func round(ctx context.Context, bin string, cfg Config) ([]float64, error) {
	w, err := world.New(bin, team)
	if err != nil {
		return nil, err
	}
	defer w.Destroy()
	names := world.Names(cfg.Members)
	files := map[string]string{}
	var members []world.Member
	for i, name := range names {
		files[name] = filepath.Join(w.Dir, fmt.Sprint(i)) // short (see world.Build); no ':' or ','
		after := cfg.Base + time.Duration(i)*cfg.Gap
		members = append(members, world.Member{Name: name, Script: fmt.Sprintf("sleep:%s,prompt-at:%s", after, files[name])})
	}
	if err := w.Up(ctx, cfg.Quiet, members); err != nil {
		return nil, err
	}
	_, following, err := w.WaitSupervisor(ctx, 20*time.Second)
	if err != nil {
		return nil, err
	}
	last := cfg.Base + time.Duration(len(names))*cfg.Gap
	stalls, err := w.FirstEvents(ctx, last+cfg.Quiet+30*time.Second, state.EventStall, names)
	if err != nil {
		return nil, err
	}
	var lat []float64
	for _, name := range names {
		b, err := os.ReadFile(files[name])
		if err != nil {
			return nil, err
		}
		asked, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(b)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", files[name], err)
		}
		if !asked.After(following) {
			return nil, fmt.Errorf("%s asked at %s, before the supervisor followed the panes (%s): raise -base",
				name, asked.Format(time.StampMicro), following.Format(time.StampMicro))
		}
		if st := stalls[name]; !strings.HasPrefix(st.Line, "Overwrite?") {
			return nil, fmt.Errorf("%s: a stall on %q, not on its question", name, st.Line)
		}
		lat = append(lat, ms(stalls[name].Time.Sub(asked)-cfg.Quiet))
	}
	return lat, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Print prints r for a reader (what the command prints without -json).
func Print(out io.Writer, r *Report) {
	fmt.Fprintf(out, "\nstall latency beyond watchdog.quiet (%.0f ms): %d members (lead + %d teammates, stand-in), %d rounds, %d samples\n",
		r.QuietMS, r.Members, r.Members-1, r.Rounds, len(r.Samples))
	fmt.Fprintf(out, "p50 %.1f ms   p95 %.1f ms   max %.1f ms   (min %.1f ms)\n", r.P50, r.P95, r.Max, r.Min)
	verdict := "PASS"
	if !r.Pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(out, "p95 %.1f ms  (target < %.0f ms) %s\n", r.P95, r.TargetP95, verdict)
}
