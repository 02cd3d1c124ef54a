// Command radar measures the conflict radar's computation — what the
// supervisor's radar and `teamctl conflicts` do for every pair of members —
// against a person's script doing the same with git, in the same run:
//
//	go run ./bench/radar              # 8 members (28 pairs), 2,000 files, 20 changed each; 10 rounds after 1 warm-up
//	go run ./bench/radar -n 20 -members 4 -json
//
// The repository (made once, untimed) has -files tracked files and -members
// worktrees made as teamctl makes them (worktrees.Ensure), each with
// -changed files changed: half committed on its branch, the rest staged,
// unstaged or new and untracked; neighbours share a quarter of their files,
// one of them on the same line (a conflict). Then, timed, interleaved:
//
//   - git: `git merge-tree --write-tree --name-only A B` for every pair of
//     branches, exec'd one after another from Go. Its branches hold the
//     members' uncommitted work too, committed before the rounds (untimed), so
//     both variants merge the same trees;
//   - git+work: the same, each worktree's uncommitted work committed first
//     in the round (a copy of its index, add --all, write-tree,
//     commit-tree, branch -f: the script of a person who wants it compared
//     too);
//   - teamctl: worktrees.WorkCommit of every member (its commits and
//     uncommitted files as one commit, read without touching its worktree),
//     then worktrees.TryMerge of every pair (worktrees.Pairs), in process.
//
// All must find the same conflicting pairs. It prints median, p90 and min
// per variant, median(teamctl)/median(git) against a target of 1.2x (the
// exit status is 1 when that target is missed), and
// median(teamctl)/median(git+work). -v then runs the loop and teamctl once
// more each and prints every git command they ran with its wall and
// processor time.
package main

import (
	"context"
	"flag"
	"io"

	"github.com/teamctl/teamctl/internal/bench/radarbench"
	"github.com/teamctl/teamctl/internal/bench/world"
)

func main() {
	var cfg radarbench.Config
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.IntVar(&cfg.Rounds, "n", 10, "timed rounds (each runs every variant once)")
	flag.IntVar(&cfg.Members, "members", 8, "members with a worktree")
	flag.IntVar(&cfg.Files, "files", 2000, "tracked files in the repository")
	flag.IntVar(&cfg.Changed, "changed", 20, "files each member changes")
	flag.IntVar(&cfg.Warmup, "warmup", 1, "untimed rounds first")
	flag.BoolVar(&cfg.Trace, "v", false, "then run the loop and teamctl once more, printing each git command with its wall and processor time")
	flag.Parse()
	world.Main("bench/radar", *asJSON, func(ctx context.Context, log io.Writer) (*radarbench.Report, error) {
		return radarbench.Run(ctx, cfg, log)
	}, radarbench.Print)
}
