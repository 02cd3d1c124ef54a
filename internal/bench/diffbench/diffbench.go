// Package diffbench is the benchmark `go run ./bench/diff` runs; see that command's doc.
package diffbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/bench/gitworld"
	"github.com/teamctl/teamctl/internal/bench/world"
	"github.com/teamctl/teamctl/worktrees"
)

const target = 1.2 // median(teamctl) / median(git) must not exceed this

// Config is a run's settings: bench/diff's flags.
type Config struct {
	Files, Members, Changed, Rounds, Warmup int
}

// Report is the whole result, as -json prints it.
type Report struct {
	Files    int           `json:"files"`
	Members  int           `json:"members"`
	Changed  int           `json:"changed_per_member"`
	Rounds   int           `json:"rounds"`
	Warmup   int           `json:"warmup"`
	Variants []world.Stats `json:"variants"` // git, teamctl
	Ratio    float64       `json:"ratio_teamctl_git"`
	Target   float64       `json:"target"`
	Pass     bool          `json:"pass"`
}

// Passed is whether r meets the target.
func (r *Report) Passed() bool { return r.Pass }

var variants = []world.Variant{
	{Name: "git", How: "git diff --stat main, then git status --porcelain --untracked-files=all, in each worktree"},
	{Name: "teamctl", How: "what `teamctl diff --stat` runs: worktrees.DiffWorktrees (each worktree's status and diff, several at a time; one walk of the history)"},
}

// Run makes the repository, then times both variants cfg.Warmup+cfg.Rounds
// times, interleaved; progress goes to log.
func Run(ctx context.Context, cfg Config, log io.Writer) (*Report, error) {
	if cfg.Rounds < 1 || cfg.Warmup < 0 {
		return nil, errors.New("need -n >= 1, -warmup >= 0")
	}
	fmt.Fprintf(log, "making a repository of %d files, %d worktrees with %d changed files each\n", cfg.Files, cfg.Members, cfg.Changed)
	repo, err := gitworld.Make(ctx, gitworld.Config{Files: cfg.Files, Members: cfg.Members, Changed: cfg.Changed})
	if err != nil {
		return nil, err
	}
	defer repo.Remove()
	var gitFiles, ourFiles int
	stats, err := world.Rounds(ctx, log, variants, cfg.Warmup, cfg.Rounds, func(ctx context.Context, i int) (time.Duration, error) {
		t0 := time.Now()
		var err error
		if i == 0 {
			gitFiles, err = baseline(ctx, repo)
		} else {
			ourFiles, err = diffStat(ctx, repo)
		}
		return time.Since(t0), err
	})
	if err != nil {
		return nil, err
	}
	// git diff --stat leaves out the untracked files, which status lists.
	if gitFiles != ourFiles {
		return nil, fmt.Errorf("the variants disagree: git shows %d changed files, teamctl %d", gitFiles, ourFiles)
	}
	rep := &Report{Files: cfg.Files, Members: cfg.Members, Changed: cfg.Changed, Rounds: cfg.Rounds, Warmup: cfg.Warmup, Variants: stats, Target: target}
	rep.Ratio = stats[1].Median / stats[0].Median
	rep.Pass = rep.Ratio <= target
	return rep, nil
}

// baseline is a person's loop: in each worktree, git diff --stat against the
// base (commits and uncommitted changes of tracked files) and git status
// (for the untracked ones). It returns the files both list.
func baseline(ctx context.Context, repo *gitworld.Repo) (int, error) {
	files := 0
	for _, m := range repo.Members {
		stat, err := repo.Git(ctx, m.Path, "diff", "--stat", "main")
		if err != nil {
			return 0, err
		}
		status, err := repo.Git(ctx, m.Path, "status", "--porcelain", "--untracked-files=all")
		if err != nil {
			return 0, err
		}
		files += strings.Count(stat, " | ") + strings.Count(status, "?? ")
	}
	return files, nil
}

// diffStat is what team.Diff does in stat mode for the members' worktrees
// (worktrees.DiffWorktrees: each worktree read and diffed, several at a
// time, with one walk of the history): it returns the files it lists.
func diffStat(ctx context.Context, repo *gitworld.Repo) (int, error) {
	members := make([]worktrees.Member, len(repo.Members))
	for i, m := range repo.Members {
		members[i] = worktrees.Member{Name: m.Name, Path: m.Path, Branch: m.Branch, Base: "main"}
	}
	files := 0
	for i, d := range worktrees.DiffWorktrees(ctx, repo.Main, members, false, worktrees.Jobs()) {
		if d.Err != nil {
			return 0, fmt.Errorf("%s: %w", members[i].Name, d.Err)
		}
		files += len(d.Files)
	}
	return files, nil
}

// Print prints r for a reader (what the command prints without -json).
func Print(out io.Writer, r *Report) {
	fmt.Fprintf(out, "\ndiff --stat of %d members' worktrees, %d changed files each, repository of %d files; %d rounds after %d warm-up, variants interleaved\n",
		r.Members, r.Changed, r.Files, r.Rounds, r.Warmup)
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
}
