// Command diff measures what `teamctl diff --stat` asks git for each member
// against a person's loop of git commands over the same worktrees, in the
// same run:
//
//	go run ./bench/diff              # 16 members, 2,000 files, 20 changed each; 10 rounds after 1 warm-up
//	go run ./bench/diff -n 20 -members 4 -json
//
// The repository is bench/radar's (made once, untimed): -members worktrees
// made as teamctl makes them, each with -changed files changed, committed,
// staged, unstaged and untracked. Then, timed, interleaved:
//
//   - git: `git diff --stat main` then `git status --porcelain
//     --untracked-files=all` (each new file, as teamctl lists them) in each
//     worktree, exec'd one after another from Go;
//   - teamctl: for each member what team.Diff does in stat mode for a
//     member with a worktree (worktrees.ReadWork: its commits and uncommitted
//     files as a tree, through a temporary index; FindBase, MergeBase,
//     CountCommits, DiffFiles), in process (team.Diff itself needs a team's
//     state; the git it runs is this).
//
// Both must list the same number of files. It prints median, p90 and min per
// variant and median(teamctl)/median(git) against a target of 1.2x; the exit
// status is 1 when that target is missed.
package main

import (
	"context"
	"flag"
	"io"

	"github.com/teamctl/teamctl/internal/bench/diffbench"
	"github.com/teamctl/teamctl/internal/bench/world"
)

func main() {
	var cfg diffbench.Config
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.IntVar(&cfg.Rounds, "n", 10, "timed rounds (each runs every variant once)")
	flag.IntVar(&cfg.Members, "members", 16, "members with a worktree")
	flag.IntVar(&cfg.Files, "files", 2000, "tracked files in the repository")
	flag.IntVar(&cfg.Changed, "changed", 20, "files each member changes")
	flag.IntVar(&cfg.Warmup, "warmup", 1, "untimed rounds first")
	flag.Parse()
	world.Main("bench/diff", *asJSON, func(ctx context.Context, log io.Writer) (*diffbench.Report, error) {
		return diffbench.Run(ctx, cfg, log)
	}, diffbench.Print)
}
