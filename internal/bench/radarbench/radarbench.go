// Package radarbench is the benchmark `go run ./bench/radar` runs; see that command's doc.
package radarbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/bench/gitworld"
	"github.com/teamctl/teamctl/internal/bench/world"
	"github.com/teamctl/teamctl/worktrees"
)

const target = 1.2 // median(teamctl) / median(git) must not exceed this

// Config is a run's settings: bench/radar's flags.
type Config struct {
	Files, Members, Changed, Rounds, Warmup int
	// Trace (-v): after the rounds, the git loop and teamctl once more each,
	// every git command printed with its wall and processor time: where
	// teamctl's time goes beside the loop's.
	Trace bool
}

// Report is the whole result, as -json prints it.
type Report struct {
	Files     int           `json:"files"`
	Members   int           `json:"members"`
	Changed   int           `json:"changed_per_member"`
	Pairs     int           `json:"pairs"`
	Conflicts int           `json:"conflicting_pairs"`
	Rounds    int           `json:"rounds"`
	Warmup    int           `json:"warmup"`
	Variants  []world.Stats `json:"variants"` // git, teamctl, git+work
	Ratio     float64       `json:"ratio_teamctl_git"`
	// RatioWork is teamctl against git+work, the script that commits the
	// uncommitted work too, as teamctl does.
	RatioWork float64 `json:"ratio_teamctl_git_work"`
	Target    float64 `json:"target"`
	Pass      bool    `json:"pass"`
}

// Passed is whether r meets the target.
func (r *Report) Passed() bool { return r.Pass }

var variants = []world.Variant{
	{Name: "git", How: "git merge-tree --write-tree per pair of branches (the uncommitted work committed first, untimed)"},
	{Name: "teamctl", How: "worktrees.CompareWorktrees, what `teamctl conflicts` runs (each worktree read, the pairs merged; members against main too)"},
	{Name: "git+work", How: "the same script, committing each worktree's uncommitted work first (temporary index: add, write-tree, commit-tree, branch)"},
}

// Run makes the repository, then times both variants cfg.Warmup+cfg.Rounds
// times, interleaved; progress goes to log.
func Run(ctx context.Context, cfg Config, log io.Writer) (*Report, error) {
	if cfg.Rounds < 1 || cfg.Warmup < 0 || cfg.Members < 2 {
		return nil, errors.New("need -n >= 1, -warmup >= 0, -members >= 2")
	}
	if err := worktrees.CheckMergeTree(ctx); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "making a repository of %d files, %d worktrees with %d changed files each\n", cfg.Files, cfg.Members, cfg.Changed)
	repo, err := gitworld.Make(ctx, gitworld.Config{Files: cfg.Files, Members: cfg.Members, Changed: cfg.Changed})
	if err != nil {
		return nil, err
	}
	defer repo.Remove()
	branches := make([]string, len(repo.Members))
	for i, m := range repo.Members {
		if branches[i], err = repo.CommitWork(ctx, m); err != nil {
			return nil, err
		}
	}
	found := make([][]string, len(variants))
	stats, err := world.Rounds(ctx, log, variants, cfg.Warmup, cfg.Rounds, func(ctx context.Context, i int) (time.Duration, error) {
		t0 := time.Now()
		var err error
		switch i {
		case 0:
			found[i], err = baseline(ctx, repo, branches)
		case 1:
			found[i], err = radar(ctx, repo)
		case 2:
			found[i], err = withWork(ctx, repo)
		}
		return time.Since(t0), err
	})
	if err != nil {
		return nil, err
	}
	for i := range found[1:] {
		if !slices.Equal(found[0], found[i+1]) {
			return nil, fmt.Errorf("the variants disagree: %s found conflicts %q, %s %q", variants[0].Name, found[0], variants[i+1].Name, found[i+1])
		}
	}
	if cfg.Trace {
		if err := traced(ctx, log, repo, branches); err != nil {
			return nil, err
		}
	}
	gitConflicts := found[0]
	n := len(repo.Members)
	rep := &Report{Files: cfg.Files, Members: n, Changed: cfg.Changed, Pairs: n * (n - 1) / 2, Conflicts: len(gitConflicts),
		Rounds: cfg.Rounds, Warmup: cfg.Warmup, Variants: stats, Target: target}
	rep.Ratio = stats[1].Median / stats[0].Median
	rep.RatioWork = stats[1].Median / stats[2].Median
	rep.Pass = rep.Ratio <= target
	return rep, nil
}

// baseline is a person's script: merge-tree on every pair of branches,
// exec'd one after another; it returns the pairs that conflict.
func baseline(ctx context.Context, repo *gitworld.Repo, branches []string) ([]string, error) {
	var conflicts []string
	for i, a := range branches {
		for j := i + 1; j < len(branches); j++ {
			out, err := repo.Git(ctx, repo.Main, "merge-tree", "--write-tree", "--name-only", a, branches[j])
			var ee *exec.ExitError
			switch {
			case errors.As(err, &ee) && ee.ExitCode() == 1:
				conflicts = append(conflicts, pair(repo, i, j))
			case err != nil:
				return nil, err
			case strings.Count(out, "\n") > 1:
				return nil, fmt.Errorf("merge-tree of %s and %s listed files without a conflict: %q", a, branches[j], out)
			}
		}
	}
	return conflicts, nil
}

// withWork is baseline with each worktree's uncommitted work committed
// first, as the script of a person who wants it compared too would have to.
func withWork(ctx context.Context, repo *gitworld.Repo) ([]string, error) {
	branches := make([]string, len(repo.Members))
	for i, m := range repo.Members {
		var err error
		if branches[i], err = repo.CommitWork(ctx, m); err != nil {
			return nil, err
		}
	}
	return baseline(ctx, repo, branches)
}

// radar is what the supervisor's radar and `teamctl conflicts` compute for
// every pair: each member's whole work as a commit (read without touching
// its worktree), then a merge of every pair of them.
func radar(ctx context.Context, repo *gitworld.Repo) ([]string, error) {
	members := make([]worktrees.Member, len(repo.Members))
	for i, m := range repo.Members {
		members[i] = worktrees.Member{Name: m.Name, Path: m.Path, Branch: m.Branch, Base: "main"}
	}
	c, err := worktrees.CompareWorktrees(ctx, repo.Main, members, worktrees.Jobs())
	if err != nil {
		return nil, err
	}
	var conflicts []string
	for i, err := range c.Errs {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", members[i].Name, err)
		}
	}
	for _, p := range c.Pairs {
		if p.Err != nil {
			return nil, p.Err
		}
		if len(p.Merge.Conflicts) > 0 {
			conflicts = append(conflicts, members[p.Pair[0]].Name+"+"+members[p.Pair[1]].Name)
		}
	}
	if len(c.AgainstBase) > 0 {
		return nil, fmt.Errorf("main did not move, yet %d members are compared with it", len(c.AgainstBase))
	}
	return conflicts, nil
}

// traced runs the loop and teamctl once more each and prints every git
// command they ran, with its wall and processor time, and their sums.
func traced(ctx context.Context, log io.Writer, repo *gitworld.Repo, branches []string) error {
	var loop strings.Builder
	t0 := time.Now()
	for i, a := range branches {
		for _, b := range branches[i+1:] {
			cmd := exec.CommandContext(ctx, "git", "merge-tree", "--write-tree", "--name-only", a, b)
			cmd.Dir, cmd.Env = repo.Main, repo.Env
			t := time.Now()
			err := cmd.Run()
			var ee *exec.ExitError
			if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
				return fmt.Errorf("git merge-tree %s %s: %w", a, b, err)
			}
			cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			fmt.Fprintf(&loop, "trace git merge-tree --write-tree --name-only %s %s  wall %.1f ms cpu %.1f ms\n", a, b,
				float64(time.Since(t).Microseconds())/1000, float64(cpu.Microseconds())/1000)
		}
	}
	printTrace(log, "git", time.Since(t0), loop.String())
	var mine strings.Builder
	worktrees.SetTrace(&mine) // written under the tracer's lock
	t0 = time.Now()
	_, err := radar(ctx, repo)
	d := time.Since(t0)
	worktrees.SetTrace(nil)
	if err != nil {
		return err
	}
	printTrace(log, "teamctl", d, mine.String())
	return nil
}

// printTrace prints a variant's traced lines under a line of their sums.
func printTrace(log io.Writer, name string, d time.Duration, lines string) {
	var wall, cpu float64
	var n int
	for _, l := range strings.Split(strings.TrimSpace(lines), "\n") {
		if i := strings.LastIndex(l, "  wall "); i >= 0 {
			var a, b float64
			fmt.Sscanf(l[i:], "  wall %f ms cpu %f ms", &a, &b)
			wall, cpu, n = wall+a, cpu+b, n+1
		}
	}
	fmt.Fprintf(log, "\n%s, traced: %.1f ms in all; %d git commands, %.1f ms of their wall time and %.1f ms of processor time:\n",
		name, float64(d.Microseconds())/1000, n, wall, cpu)
	for _, l := range strings.Split(strings.TrimSpace(lines), "\n") {
		fmt.Fprintln(log, "  "+strings.TrimPrefix(l, "trace "))
	}
}

func pair(repo *gitworld.Repo, i, j int) string {
	return repo.Members[i].Name + "+" + repo.Members[j].Name
}

// Print prints r for a reader (what the command prints without -json).
func Print(out io.Writer, r *Report) {
	fmt.Fprintf(out, "\nconflict radar: %d members (%d pairs, %d conflicting), %d changed files each, repository of %d files; %d rounds after %d warm-up, variants interleaved\n",
		r.Members, r.Pairs, r.Conflicts, r.Changed, r.Files, r.Rounds, r.Warmup)
	fmt.Fprintf(out, "%-8s %9s %9s %9s %9s\n", "variant", "median ms", "p90 ms", "min ms", "cpu ms")
	for _, v := range r.Variants {
		fmt.Fprintf(out, "%-8s %9.1f %9.1f %9.1f %9.1f   %s\n", v.Name, v.Median, v.P90, v.Min, v.CPU, v.How)
	}
	verdict := "PASS"
	if !r.Pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(out, "teamctl / git  %.2fx  (target <= %.1fx) %s\n", r.Ratio, r.Target, verdict)
	fmt.Fprintf(out, "teamctl / git+work  %.2fx\n", r.RatioWork)
	fmt.Fprintf(out, "processor time, teamctl / git  %.2fx\n", r.Variants[1].CPU/r.Variants[0].CPU)
}
