// Command latency measures how long after a member's question appears, beyond
// the watchdog's quiet period, the supervisor reports it as a stall:
//
//	go run ./bench/latency             # 16 members, 3 rounds, quiet 2s
//	go run ./bench/latency -rounds 10 -quiet 500ms -json
//
// Each round brings a team up in a fresh world (its own HOME,
// CLAUDE_CONFIG_DIR, XDG_STATE_HOME and TMUX_TMPDIR, so never the user's tmux
// server): a lead and members-1 teammates, all teamctl's stand-in agent, member
// i running the script sleep:(base+i*gap),prompt-at:FILE_i. So the members'
// questions ("Overwrite? (y/n) ") appear one after another, each the pane's
// only output since start-up and its last, and the stand-in writes to FILE_i
// the time right before writing its question (so no latency comes out below
// the truth, as one did with the time taken after). The round waits until `teamctl
// status` says the supervisor runs and the supervisor has logged its "started"
// event (its tmux control client is then attached), and refuses a question
// that appeared before that.
//
// For each member:
//
//	latency = time of its first "stall" event − time in FILE_i − watchdog.quiet
//
// that is, what the supervisor adds to the quiet period it is told to wait:
// the %output notification's way to it, its timer, the capture-pane and the
// verdict. It prints p50, p95 and max over all members of all rounds; the
// target is p95 < 250 ms and the exit status is 1 when it is missed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/teamctl/teamctl/bench/internal/world"
	"github.com/teamctl/teamctl/state"
)

const (
	targetP95 = 250.0 // ms
	team      = "lat"
)

type config struct {
	members, rounds  int
	quiet, base, gap time.Duration
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

func main() {
	var cfg config
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.IntVar(&cfg.rounds, "rounds", 3, "rounds, each a fresh team")
	flag.IntVar(&cfg.members, "members", 16, "team size: a lead and members-1 teammates")
	flag.DurationVar(&cfg.quiet, "quiet", 2*time.Second, "the layout's watchdog.quiet")
	flag.DurationVar(&cfg.base, "base", 3*time.Second, "when the first question appears, after its member starts")
	flag.DurationVar(&cfg.gap, "gap", 250*time.Millisecond, "between one member's question and the next's")
	flag.Parse()
	world.Main("bench/latency", *asJSON, func(ctx context.Context, log io.Writer) (*Report, error) { return run(ctx, cfg, log) }, printReport)
}

// Passed is whether r meets the target(s).
func (r *Report) Passed() bool { return r.Pass }

// run builds teamctl and runs cfg.rounds rounds; progress goes to log.
func run(ctx context.Context, cfg config, log io.Writer) (*Report, error) {
	if cfg.members < 1 || cfg.rounds < 1 || cfg.quiet <= 0 || cfg.base <= 0 || cfg.gap < 0 {
		return nil, errors.New("need -members >= 1, -rounds >= 1, -quiet > 0, -base > 0, -gap >= 0")
	}
	fmt.Fprintln(log, "building teamctl")
	bin, remove, err := world.Build(ctx)
	if err != nil {
		return nil, err
	}
	defer remove()
	rep := &Report{Members: cfg.members, Rounds: cfg.rounds, QuietMS: ms(cfg.quiet), TargetP95: targetP95}
	for r := range cfg.rounds {
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
func round(ctx context.Context, bin string, cfg config) ([]float64, error) {
	w, err := world.New(bin, team)
	if err != nil {
		return nil, err
	}
	defer w.Destroy()
	names := world.Names(cfg.members)
	files := map[string]string{}
	var members []world.Member
	for i, name := range names {
		files[name] = filepath.Join(w.Dir, fmt.Sprint(i)) // short (see world.Build); no ':' or ','
		after := cfg.base + time.Duration(i)*cfg.gap
		members = append(members, world.Member{Name: name, Script: fmt.Sprintf("sleep:%s,prompt-at:%s", after, files[name])})
	}
	if err := w.Up(ctx, cfg.quiet, members); err != nil {
		return nil, err
	}
	_, following, err := w.WaitSupervisor(ctx, 20*time.Second)
	if err != nil {
		return nil, err
	}
	last := cfg.base + time.Duration(len(names))*cfg.gap
	stalls, err := w.FirstEvents(ctx, last+cfg.quiet+30*time.Second, state.EventStall, names)
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
		lat = append(lat, ms(stalls[name].Time.Sub(asked)-cfg.quiet))
	}
	return lat, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func printReport(out io.Writer, r *Report) {
	fmt.Fprintf(out, "\nstall latency beyond watchdog.quiet (%.0f ms): %d members (lead + %d teammates, stand-in), %d rounds, %d samples\n",
		r.QuietMS, r.Members, r.Members-1, r.Rounds, len(r.Samples))
	fmt.Fprintf(out, "p50 %.1f ms   p95 %.1f ms   max %.1f ms   (min %.1f ms)\n", r.P50, r.P95, r.Max, r.Min)
	verdict := "PASS"
	if !r.Pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(out, "p95 %.1f ms  (target < %.0f ms) %s\n", r.P95, r.TargetP95, verdict)
}
