// Package cleanbench is the benchmark `go run ./bench/clean` runs; see that command's doc.
package cleanbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/bench/world"
)

const (
	target = 1.0 // median(teamctl) / median(git) must not exceed this (issue 33)
	team   = "bench"
	files  = 200 // tracked files in the repository, so a removal has work to do
)

// Config is a run's settings: bench/clean's flags (-worktrees, -n, -warmup), and Bin.
type Config struct {
	Worktrees, Rounds, Warmup int
	Bin                       string // a teamctl binary already built; "" builds one for the run (see world.Teamctl)
	// Trace (-v): after the rounds, each variant once more in a fresh world,
	// each git command it ran printed with its wall and processor time
	// (teamctl's through TEAMCTL_TRACE): where the two differ.
	Trace bool
}

// Report is the whole result, as -json prints it.
type Report struct {
	Worktrees int           `json:"worktrees"`
	Rounds    int           `json:"rounds"`
	Warmup    int           `json:"warmup"`
	Variants  []world.Stats `json:"variants"` // git, teamctl
	Ratio     float64       `json:"ratio_teamctl_git"`
	Target    float64       `json:"target"`
	Pass      bool          `json:"pass"`
	LoadAvg   string        `json:"loadavg"` // /proc/loadavg at the end of the run
}

// Passed is whether r meets the target.
func (r *Report) Passed() bool { return r.Pass }

// variant is one way of removing the worktrees; remove is what gets timed.
type variant struct {
	world.Variant
	remove func(ctx context.Context, w *world.World, repo string, paths []string) error
}

var variants = []variant{
	{world.Variant{Name: "git", How: "git worktree remove <path>, one process per worktree, exec'd one after another from Go"},
		func(ctx context.Context, w *world.World, repo string, paths []string) error {
			for _, p := range paths {
				if out, err := world.Command(ctx, world.Timeout, repo, w.Env, "git", "worktree", "remove", p); err != nil {
					return fmt.Errorf("git worktree remove %s: %v: %s", p, err, out)
				}
			}
			return nil
		}},
	{world.Variant{Name: "teamctl", How: "teamctl clean bench (the binary, built once at start)"},
		func(ctx context.Context, w *world.World, _ string, _ []string) error {
			if out, err := w.Teamctl(ctx, "clean", team); err != nil {
				return fmt.Errorf("teamctl clean: %v\n%s", err, out)
			}
			return nil
		}},
}

// Run builds teamctl (unless cfg.Bin is one), then times every variant cfg.Warmup+cfg.Rounds times,
// interleaved; progress goes to log.
func Run(ctx context.Context, cfg Config, log io.Writer) (*Report, error) {
	if cfg.Worktrees < 1 || cfg.Rounds < 1 || cfg.Warmup < 0 {
		return nil, errors.New("need -worktrees >= 1, -n >= 1, -warmup >= 0")
	}
	bin, remove, err := world.Teamctl(ctx, log, cfg.Bin)
	if err != nil {
		return nil, err
	}
	defer remove()
	vs := make([]world.Variant, len(variants))
	for i, v := range variants {
		vs[i] = v.Variant
	}
	// The processor time of the removal alone (a round's, as world.Rounds
	// counts it, is mostly its setup: up and down of the team).
	cpus := make([][]float64, len(variants))
	calls := 0
	stats, err := world.Rounds(ctx, log, vs, cfg.Warmup, cfg.Rounds, func(ctx context.Context, i int) (time.Duration, error) {
		d, cpu, err := once(ctx, variants[i], bin, cfg.Worktrees)
		if calls/len(variants) >= cfg.Warmup {
			cpus[i] = append(cpus[i], cpu)
		}
		calls++
		return d, err
	})
	if err != nil {
		return nil, err
	}
	for i := range stats {
		stats[i].CPU = world.Summarize("", "", cpus[i]).Median
	}
	if cfg.Trace {
		if err := traced(ctx, log, bin, cfg.Worktrees); err != nil {
			return nil, err
		}
	}
	rep := &Report{Worktrees: cfg.Worktrees, Rounds: cfg.Rounds, Warmup: cfg.Warmup, Target: target, Variants: stats}
	rep.Ratio = rep.Variants[1].Median / rep.Variants[0].Median
	rep.Pass = rep.Ratio <= target
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		rep.LoadAvg = strings.TrimSpace(string(b))
	}
	return rep, nil
}

// once sets up a stopped team with n worktrees in a fresh world, times v's
// removal of them, checks they are gone, and tears the world down. It
// returns the removal's wall time and its processor time in ms (this
// process's and its children's: git's, or teamctl's with its git).
func once(ctx context.Context, v variant, bin string, n int) (time.Duration, float64, error) {
	w, err := world.New(bin, team)
	if err != nil {
		return 0, 0, err
	}
	defer w.Destroy()
	repo, paths, err := setup(ctx, w, n)
	if err != nil {
		return 0, 0, err
	}
	cpu0 := world.CPUTime()
	t0 := time.Now()
	err = v.remove(ctx, w, repo, paths)
	d := time.Since(t0)
	cpu := float64((world.CPUTime() - cpu0).Microseconds()) / 1000
	if err != nil {
		return 0, 0, err
	}
	for _, p := range paths {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			return 0, 0, fmt.Errorf("worktree %s is still there (%v)", p, err)
		}
	}
	if v.Name == "teamctl" { // it did the rest of its job too
		out, err := world.Command(ctx, world.Timeout, repo, w.Env, "git", "branch", "--list", "teamctl/*")
		if err != nil || strings.TrimSpace(out) != "" {
			return 0, 0, fmt.Errorf("teamctl's branches are left: %v %s", err, out)
		}
		if _, err := os.Stat(filepath.Join(w.StateHome, "teamctl", team)); !errors.Is(err, os.ErrNotExist) {
			return 0, 0, fmt.Errorf("the team's state is left (%v)", err)
		}
	}
	return d, cpu, nil
}

// setup makes the repository, brings the team up (which makes the worktrees)
// and down, and returns the repository and the worktrees' paths.
func setup(ctx context.Context, w *world.World, n int) (string, []string, error) {
	repo := filepath.Join(w.Work, "repo")
	for i := range files {
		p := filepath.Join(repo, fmt.Sprintf("pkg%02d", i%20), fmt.Sprintf("f%03d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", nil, err
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("package pkg\n\nconst C%d = %d\n", i, i)), 0o644); err != nil {
			return "", nil, err
		}
	}
	git := func(args ...string) error {
		full := append([]string{"-c", "user.name=bench", "-c", "user.email=bench@example.invalid"}, args...)
		if out, err := world.Command(ctx, world.Timeout, repo, w.Env, "git", full...); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, out)
		}
		return nil
	}
	if err := git("init", "-q", "-b", "main"); err != nil {
		return "", nil, err
	}
	if err := git("add", "."); err != nil {
		return "", nil, err
	}
	if err := git("commit", "-q", "-m", "files"); err != nil {
		return "", nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "claude:\n  command: %q\n  args: [stand-in]\nteam: %s\nroot: repo\nlayout: tiled\nmembers:\n", w.Bin, team)
	var paths []string
	for i := range n {
		name := fmt.Sprintf("m%02d", i)
		fmt.Fprintf(&b, "  - name: %s\n    command: [sleep, \"600\"]\n    worktree: true\n", name)
		paths = append(paths, filepath.Join(repo, ".teamctl", "worktrees", team, name))
	}
	layout := filepath.Join(w.Work, "layout.yaml")
	if err := os.WriteFile(layout, []byte(b.String()), 0o600); err != nil {
		return "", nil, err
	}
	if out, err := w.Teamctl(ctx, "up", "--quiet", layout); err != nil {
		return "", nil, fmt.Errorf("teamctl up: %v\n%s", err, out)
	}
	if out, err := w.Teamctl(ctx, "down", "--team", team, "--now", "--timeout", "2s"); err != nil {
		return "", nil, fmt.Errorf("teamctl down: %v\n%s", err, out)
	}
	for _, p := range paths {
		if _, err := os.Stat(filepath.Join(p, "pkg00", "f000.go")); err != nil {
			return "", nil, fmt.Errorf("worktree not made: %w", err)
		}
	}
	return repo, paths, nil
}

// Print prints r for a reader (what the command prints without -json).
func Print(out io.Writer, r *Report) {
	fmt.Fprintf(out, "\nremoving %d worktrees (repository of %d files) of a stopped team, %d rounds after %d warm-up, variants interleaved\n",
		r.Worktrees, files, r.Rounds, r.Warmup)
	fmt.Fprintf(out, "%-8s %9s %9s %9s %9s\n", "variant", "median ms", "p90 ms", "min ms", "cpu ms")
	for _, v := range r.Variants {
		fmt.Fprintf(out, "%-8s %9.1f %9.1f %9.1f %9.1f   %s\n", v.Name, v.Median, v.P90, v.Min, v.CPU, v.How)
	}
	verdict := "PASS"
	if !r.Pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(out, "teamctl / git  %.2fx  (target <= %.1fx) %s\n", r.Ratio, r.Target, verdict)
	fmt.Fprintf(out, "processor time, teamctl / git  %.2fx\n", r.Variants[1].CPU/r.Variants[0].CPU)
	fmt.Fprintf(out, "load average at the end: %s\n", r.LoadAvg)
}

// traced removes the worktrees once more each way, in a fresh world each,
// and prints every git command with its wall and processor time: the loop's
// as the benchmark runs them, teamctl's as TEAMCTL_TRACE prints them.
func traced(ctx context.Context, log io.Writer, bin string, n int) error {
	for _, v := range variants {
		w, err := world.New(bin, team)
		if err != nil {
			return err
		}
		repo, paths, err := setup(ctx, w, n)
		if err != nil {
			w.Destroy()
			return err
		}
		var lines []string
		t0 := time.Now()
		if v.Name == "git" {
			for _, p := range paths {
				line, err := gitTraced(ctx, w, repo, "worktree", "remove", p)
				if err != nil {
					w.Destroy()
					return err
				}
				lines = append(lines, line)
			}
		} else {
			w.Env = append(w.Env, "TEAMCTL_TRACE=1")
			out, err := w.Teamctl(ctx, "clean", team)
			if err != nil {
				w.Destroy()
				return fmt.Errorf("teamctl clean (traced): %v\n%s", err, out)
			}
			for _, l := range strings.Split(out, "\n") {
				if rest, ok := strings.CutPrefix(l, "trace "); ok {
					lines = append(lines, rest)
				}
			}
		}
		d := time.Since(t0)
		w.Destroy()
		var wall, cpu float64
		for _, l := range lines {
			var a, b float64
			if i := strings.LastIndex(l, "  wall "); i >= 0 {
				fmt.Sscanf(l[i:], "  wall %f ms cpu %f ms", &a, &b)
			}
			wall, cpu = wall+a, cpu+b
		}
		fmt.Fprintf(log, "\n%s, traced: %.1f ms in all; %d git commands, %.1f ms of their wall time and %.1f ms of processor time:\n",
			v.Name, float64(d.Microseconds())/1000, len(lines), wall, cpu)
		for _, l := range lines {
			fmt.Fprintln(log, "  "+l)
		}
	}
	return nil
}

// gitTraced runs one git command of the loop, as the benchmark does, and
// says it as TEAMCTL_TRACE says teamctl's.
func gitTraced(ctx context.Context, w *world.World, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, world.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir, cmd.Env = dir, w.Env
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(t0)
	if err != nil {
		return "", fmt.Errorf("git %v: %v: %s", args, err, out)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return fmt.Sprintf("git %s  wall %.1f ms cpu %.1f ms", strings.Join(args, " "),
		float64(d.Microseconds())/1000, float64(cpu.Microseconds())/1000), nil
}
