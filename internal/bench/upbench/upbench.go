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
	target = 1.1 // teamctl-plain / single-plain and teamctl / single+config must not exceed this
	team   = "bench"
	socket = "bench" // the baselines' tmux socket (-L); teamctl uses teamctl-bench
	width  = 200
)

// Config is a run's settings: bench/up's flags (-members, -n, -warmup), and Bin.
type Config struct {
	Members, Rounds, Warmup int
	Bin                     string // a teamctl binary already built; "" builds one for the run (see world.Teamctl)
	// Trace (-v): after the rounds, one more up of each team with
	// TEAMCTL_TRACE set, its steps (each tmux invocation, state save, the
	// supervisor's start) printed with their times: where teamctl and the
	// single call differ.
	Trace bool
}

// Report is the whole result, as -json prints it.
type Report struct {
	Members         int           `json:"members"`
	Rounds          int           `json:"rounds"`
	Warmup          int           `json:"warmup"`
	Variants        []world.Stats `json:"variants"` // per-command, single, single+config, teamctl, single-plain, teamctl-plain
	RatioPerCommand float64       `json:"ratio_teamctl_per_command"`
	RatioSingle     float64       `json:"ratio_teamctl_single"`
	// RatioConfig is teamctl / single+config: the Claude Code team's target.
	RatioConfig float64 `json:"ratio_teamctl_single_config"`
	// RatioPlain is teamctl-plain / single-plain: the plain team's target.
	RatioPlain float64 `json:"ratio_plain"`
	Target     float64 `json:"target"`
	Pass       bool    `json:"pass"`
	LoadAvg    string  `json:"loadavg"` // /proc/loadavg at the end of the run
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
	cmds, session, err := tmuxCommands(layout)
	if err != nil {
		return nil, err
	}
	plainDir := filepath.Join(dir, "plain")
	if err := os.Mkdir(plainDir, 0o700); err != nil {
		return nil, err
	}
	plain, err := writePlainLayout(plainDir, cfg.Members)
	if err != nil {
		return nil, err
	}
	plainCmds, _, err := tmuxCommands(plain)
	if err != nil {
		return nil, err
	}

	variants := makeVariants(layout, cmds, session, plain, plainCmds)
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
	if cfg.Trace {
		for _, l := range []struct{ name, file string }{{"teamctl-plain", plain}, {"teamctl", layout}} {
			if err := trace(ctx, log, l.name, l.file, bin); err != nil {
				return nil, err
			}
		}
	}
	rep := &Report{Members: cfg.Members, Rounds: cfg.Rounds, Warmup: cfg.Warmup, Target: target, Variants: stats}
	med := func(i int) float64 { return rep.Variants[i].Median }
	rep.RatioPerCommand, rep.RatioSingle, rep.RatioConfig = med(3)/med(0), med(3)/med(1), med(3)/med(2)
	rep.RatioPlain = med(5) / med(4)
	rep.Pass = rep.RatioConfig <= target && rep.RatioPlain <= target
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		rep.LoadAvg = strings.TrimSpace(string(b))
	}
	return rep, nil
}

// chain joins tmux commands with ";" into one invocation's arguments.
func chain(cmds [][]string) []string {
	var chained []string
	for i, c := range cmds {
		if i > 0 {
			chained = append(chained, ";")
		}
		chained = append(chained, c...)
	}
	return chained
}

// makeVariants returns per-command, single, single+config and teamctl for the
// Claude Code team (layout; cmds its baselines' tmux commands, session the
// lead's session id they use), then single-plain and teamctl-plain for the team
// of plain processes (plain, plainCmds).
func makeVariants(layout string, cmds [][]string, session, plain string, plainCmds [][]string) []variant {
	tmuxRun := func(ctx context.Context, w *world.World, args []string) error {
		if out, err := w.TmuxOn(ctx, socket, args...); err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}
	teamctlUp := func(layout string) func(ctx context.Context, w *world.World) error {
		return func(ctx context.Context, w *world.World) error {
			if out, err := w.Teamctl(ctx, "up", layout); err != nil {
				return fmt.Errorf("teamctl up: %v\n%s", err, out)
			}
			return nil
		}
	}
	return []variant{
		{"per-command", fmt.Sprintf("%d tmux processes, exec'd one after another from Go (no shell)", len(cmds)), socket,
			func(ctx context.Context, w *world.World) error {
				for _, c := range cmds {
					if err := tmuxRun(ctx, w, c); err != nil {
						return err
					}
				}
				return nil
			}},
		{"single", fmt.Sprintf("1 tmux process, the same %d commands chained with ';'", len(cmds)), socket,
			func(ctx context.Context, w *world.World) error { return tmuxRun(ctx, w, chain(cmds)) }},
		{"single+config", "the lead's pane, the lead's own time to write its team config, then the rest chained in 1 tmux process", socket,
			func(ctx context.Context, w *world.World) error {
				if err := tmuxRun(ctx, w, cmds[0]); err != nil {
					return err
				}
				path, err := claudecode.TeamConfigPath(filepath.Join(w.Dir, "h", ".claude"), claudecode.LeadTeamName(session))
				if err != nil {
					return err
				}
				wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				err = claudecode.WaitTeamConfig(wctx, path)
				cancel()
				if err != nil {
					return fmt.Errorf("the lead's team config: %w", err)
				}
				return tmuxRun(ctx, w, chain(cmds[1:]))
			}},
		{"teamctl", "teamctl up layout.yaml (the binary, built once at start)", state.SocketName(team), teamctlUp(layout)},
		{"single-plain", fmt.Sprintf("plain processes: 1 tmux process, %d commands chained with ';'", len(plainCmds)), socket,
			func(ctx context.Context, w *world.World) error { return tmuxRun(ctx, w, chain(plainCmds)) }},
		{"teamctl-plain", "plain processes: teamctl up processes.yaml", state.SocketName(team), teamctlUp(plain)},
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

// writePlainLayout writes a team of plain processes (no lead, every member a
// command: sleep), in layout main-vertical.
func writePlainLayout(dir string, members int) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "team: %s\nlayout: main-vertical\nmembers:\n", team)
	for i := range members {
		fmt.Fprintf(&b, "  - {name: proc-%02d, command: [sleep, \"3600\"]}\n", i)
	}
	p := filepath.Join(dir, "processes.yaml")
	return p, os.WriteFile(p, []byte(b.String()), 0o600)
}

// tmuxCommands are the baselines' commands (without "tmux -L SOCKET"): the
// panes teamctl would create for layout, with the argv and -e environment
// teamctl plans for each member, in a window of teamctl's default size.
func tmuxCommands(layout string) (cmds [][]string, session string, err error) {
	l, err := layouts.Parse(layout)
	if err != nil {
		return nil, "", err
	}
	progs, err := launch.ResolvePrograms(l, "")
	if err != nil {
		return nil, "", err
	}
	session = claudecode.NewSessionID()
	plan, err := launch.Plan(l, progs, session)
	if err != nil {
		return nil, "", err
	}
	height := max(50, 3*len(plan)+2) // as teamctl: every stacked pane needs a line and a border
	pane := func(x launch.Launch, head ...string) []string {
		head = append(head, "-P", "-F", "#{pane_id}")
		for _, kv := range x.Env {
			head = append(head, "-e", kv)
		}
		return append(head, x.Argv...)
	}
	cmds = [][]string{pane(plan[0], "new-session", "-d", "-s", team, "-x", strconv.Itoa(width), "-y", strconv.Itoa(height))}
	for _, x := range plan[1:] {
		cmds = append(cmds, pane(x, "split-window", "-d", "-h", "-f", "-t", "%0"))
	}
	return append(cmds, []string{"select-layout", "-t", "%0", "main-vertical"}), session, nil
}

// Print prints r for a reader (what the command prints without -json).
func Print(out io.Writer, r *Report) {
	fmt.Fprintf(out, "\nteamctl up: %d members (lead + %d teammates, stand-in agent, main-vertical), %d rounds after %d warm-up, variants interleaved\n",
		r.Members, r.Members-1, r.Rounds, r.Warmup)
	fmt.Fprintf(out, "%-14s %9s %9s %9s %9s\n", "variant", "median ms", "p90 ms", "min ms", "cpu ms")
	for _, v := range r.Variants {
		fmt.Fprintf(out, "%-14s %9.1f %9.1f %9.1f %9.1f   %s\n", v.Name, v.Median, v.P90, v.Min, v.CPU, v.How)
	}
	verdict := func(x float64) string {
		if x <= r.Target {
			return "PASS"
		}
		return "FAIL"
	}
	fmt.Fprintf(out, "teamctl-plain / single-plain  %.2fx  (target <= %.1fx) %s\n", r.RatioPlain, r.Target, verdict(r.RatioPlain))
	fmt.Fprintf(out, "teamctl / single+config       %.2fx  (target <= %.1fx) %s\n", r.RatioConfig, r.Target, verdict(r.RatioConfig))
	fmt.Fprintf(out, "teamctl / per-command         %.2fx\n", r.RatioPerCommand)
	fmt.Fprintf(out, "teamctl / single              %.2fx\n", r.RatioSingle)
	fmt.Fprintf(out, "load average at the end: %s\n", r.LoadAvg)
}

// trace runs `teamctl up layout` once more in a fresh world with
// TEAMCTL_TRACE set and prints its steps.
func trace(ctx context.Context, log io.Writer, name, layout, bin string) error {
	w, err := world.New(bin, team)
	if err != nil {
		return err
	}
	defer w.Destroy()
	w.Env = append(w.Env, "TEAMCTL_TRACE=1")
	t0 := time.Now()
	out, err := w.Teamctl(ctx, "up", "-q", layout)
	d := time.Since(t0)
	if err != nil {
		return fmt.Errorf("teamctl up (traced): %v\n%s", err, out)
	}
	fmt.Fprintf(log, "\n%s, traced (%.1f ms in all, the process's start and exit included):\n", name, float64(d.Microseconds())/1000)
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "trace ") {
			fmt.Fprintln(log, "  "+strings.TrimPrefix(line, "trace "))
		}
	}
	return nil
}
