// Package upbench is the benchmark `go run ./bench/up` runs; see that command's doc.
package upbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/bench/world"
	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
)

const (
	target = 1.3 // median(teamctl) / median(per-command) must not exceed this
	team   = "bench"
	socket = "bench" // the baselines' tmux socket (-L); teamctl uses teamctl-bench
	width  = 200
)

// Config is a run's settings: bench/up's flags (-members, -n, -warmup), and Bin.
type Config struct {
	Members, Rounds, Warmup int
	Bin                     string // a teamctl binary already built; "" builds one for the run (see world.Teamctl)
}

// Report is the whole result, as -json prints it.
type Report struct {
	Members         int           `json:"members"`
	Rounds          int           `json:"rounds"`
	Warmup          int           `json:"warmup"`
	Variants        []world.Stats `json:"variants"` // per-command, single, teamctl
	RatioPerCommand float64       `json:"ratio_teamctl_per_command"`
	RatioSingle     float64       `json:"ratio_teamctl_single"`
	Target          float64       `json:"target"`
	Pass            bool          `json:"pass"`
}

// Passed is whether r meets the target(s).
func (r *Report) Passed() bool { return r.Pass }

// variant is one way of bringing the panes up; start is what gets timed.
type variant struct {
	name, how string
	socket    string
	start     func(ctx context.Context, w *world.World) error
}

// Run builds teamctl (unless cfg.Bin is one), then times every variant cfg.Warmup+cfg.Rounds times,
// interleaved; progress goes to log.
func Run(ctx context.Context, cfg Config, log io.Writer) (*Report, error) {
	if cfg.Members < 1 || cfg.Rounds < 1 || cfg.Warmup < 0 {
		return nil, errors.New("need -members >= 1, -n >= 1, -warmup >= 0")
	}
	bin, remove, err := world.Teamctl(ctx, log, cfg.Bin)
	if err != nil {
		return nil, err
	}
	defer remove()
	// The layout's folder (the members' cwd) is a short one of its own, as
	// world.Build's: not next to cfg.Bin, which may be shared.
	dir, err := os.MkdirTemp("", "tcl")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	layout, err := writeLayout(dir, bin, cfg.Members)
	if err != nil {
		return nil, err
	}
	cmds, err := tmuxCommands(layout)
	if err != nil {
		return nil, err
	}

	variants := makeVariants(bin, layout, cmds)
	vs := make([]world.Variant, len(variants))
	for i, v := range variants {
		vs[i] = world.Variant{Name: v.name, How: v.how}
	}
	stats, err := world.Rounds(ctx, log, vs, cfg.Warmup, cfg.Rounds, func(ctx context.Context, i int) (time.Duration, error) {
		return once(ctx, variants[i], bin, cfg.Members)
	})
	if err != nil {
		return nil, err
	}
	rep := &Report{Members: cfg.Members, Rounds: cfg.Rounds, Warmup: cfg.Warmup, Target: target, Variants: stats}
	pc, single, tc := rep.Variants[0].Median, rep.Variants[1].Median, rep.Variants[2].Median
	rep.RatioPerCommand, rep.RatioSingle = tc/pc, tc/single
	rep.Pass = rep.RatioPerCommand <= target
	return rep, nil
}

// makeVariants returns per-command, single and teamctl: cmds are the
// baselines' tmux commands, bin and layout teamctl's.
func makeVariants(bin, layout string, cmds [][]string) []variant {
	var chained []string
	for i, c := range cmds {
		if i > 0 {
			chained = append(chained, ";")
		}
		chained = append(chained, c...)
	}
	return []variant{
		{"per-command", fmt.Sprintf("%d tmux processes, exec'd one after another from Go (no shell)", len(cmds)), socket,
			func(ctx context.Context, w *world.World) error {
				for _, c := range cmds {
					if out, err := w.TmuxOn(ctx, socket, c...); err != nil {
						return fmt.Errorf("%v: %s", err, out)
					}
				}
				return nil
			}},
		{"single", fmt.Sprintf("1 tmux process, the same %d commands chained with ';'", len(cmds)), socket,
			func(ctx context.Context, w *world.World) error {
				if out, err := w.TmuxOn(ctx, socket, chained...); err != nil {
					return fmt.Errorf("%v: %s", err, out)
				}
				return nil
			}},
		{"teamctl", "teamctl up layout.yaml (the binary, built once at start)", state.SocketName(team),
			func(ctx context.Context, w *world.World) error {
				if out, err := w.Teamctl(ctx, "up", layout); err != nil {
					return fmt.Errorf("teamctl up: %v\n%s", err, out)
				}
				return nil
			}},
	}
}

// once runs variant v in a fresh world, checks that it made every pane, tears
// the world down and returns how long v.start took.
func once(ctx context.Context, v variant, bin string, members int) (time.Duration, error) {
	w, err := world.New(bin, team)
	if err != nil {
		return 0, err
	}
	defer w.Destroy()
	t0 := time.Now()
	err = v.start(ctx, w)
	d := time.Since(t0)
	if err != nil {
		return 0, err
	}
	out, err := w.TmuxOn(ctx, v.socket, "list-panes", "-a", "-F", "#{pane_pid}")
	if err != nil {
		return 0, fmt.Errorf("list panes: %v: %s", err, out)
	}
	pids := strings.Fields(out)
	for _, p := range pids { // for Destroy to wait for them
		pid, _ := strconv.Atoi(p)
		w.Track(pid)
	}
	if len(pids) != members {
		return 0, fmt.Errorf("%d panes, want %d", len(pids), members)
	}
	return d, nil
}

// writeLayout writes the benchmark's layout: a lead and members-1 teammates,
// every one the stand-in agent with a short prompt.
func writeLayout(dir, bin string, members int) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "claude:\n  command: %q\n  args: [stand-in]\nteam: %s\nlayout: main-vertical\n", bin, team)
	b.WriteString("lead:\n  prompt: Coordinate the team.\nmembers:\n")
	for i := 1; i < members; i++ {
		fmt.Fprintf(&b, "  - name: mate-%02d\n    prompt: Do task %d.\n", i, i)
	}
	p := filepath.Join(dir, "layout.yaml")
	return p, os.WriteFile(p, []byte(b.String()), 0o600)
}

// tmuxCommands are the baselines' commands (without "tmux -L SOCKET"): the
// panes teamctl would create for layout, with the argv and -e environment
// teamctl plans for each member, in a window of teamctl's default size.
func tmuxCommands(layout string) ([][]string, error) {
	l, err := layouts.Parse(layout)
	if err != nil {
		return nil, err
	}
	progs, err := launch.ResolvePrograms(l, "")
	if err != nil {
		return nil, err
	}
	plan, err := launch.Plan(l, progs, claudecode.NewSessionID())
	if err != nil {
		return nil, err
	}
	height := max(50, 3*len(plan)+2) // as teamctl: every stacked pane needs a line and a border
	pane := func(x launch.Launch, head ...string) []string {
		head = append(head, "-P", "-F", "#{pane_id}")
		for _, kv := range x.Env {
			head = append(head, "-e", kv)
		}
		return append(head, x.Argv...)
	}
	cmds := [][]string{pane(plan[0], "new-session", "-d", "-s", team, "-x", strconv.Itoa(width), "-y", strconv.Itoa(height))}
	for _, x := range plan[1:] {
		cmds = append(cmds, pane(x, "split-window", "-d", "-h", "-f", "-t", "%0"))
	}
	return append(cmds, []string{"select-layout", "-t", "%0", "main-vertical"}), nil
}

// Print prints r for a reader (what the command prints without -json).
func Print(out io.Writer, r *Report) {
	fmt.Fprintf(out, "\nteamctl up: %d members (lead + %d teammates, stand-in agent, main-vertical), %d rounds after %d warm-up, variants interleaved\n",
		r.Members, r.Members-1, r.Rounds, r.Warmup)
	fmt.Fprintf(out, "%-12s %9s %9s %9s\n", "variant", "median ms", "p90 ms", "min ms")
	for _, v := range r.Variants {
		fmt.Fprintf(out, "%-12s %9.1f %9.1f %9.1f   %s\n", v.Name, v.Median, v.P90, v.Min, v.How)
	}
	verdict := "PASS"
	if !r.Pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(out, "teamctl / per-command  %.2fx  (target <= %.1fx) %s\n", r.RatioPerCommand, r.Target, verdict)
	fmt.Fprintf(out, "teamctl / single       %.2fx\n", r.RatioSingle)
}
