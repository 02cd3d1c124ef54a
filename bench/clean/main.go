// Command clean measures `teamctl clean` of a stopped team whose members each
// have a git worktree, against the plain sequence of `git worktree remove`
// commands for the same worktrees, measured in the same run:
//
//	go run ./bench/clean              # 16 worktrees, 10 rounds after 1 warm-up round
//	go run ./bench/clean -n 20 -worktrees 8 -json
//
// Each round, for each variant, a fresh world (its own HOME, CLAUDE_CONFIG_DIR,
// XDG_STATE_HOME and TMUX_TMPDIR) gets a git repository (200 tracked files), a
// team of a stand-in lead and N plain members each with `worktree: true`,
// brought up with `teamctl up` and stopped with `teamctl down` (untimed).
// Then, timed:
//
//   - git: `git worktree remove <path>` for each worktree, exec'd one after
//     another from Go (no shell), in the main checkout;
//   - teamctl: `teamctl clean bench`, from process start until it returns: it
//     also checks what would be lost, prunes, deletes the N merged branches and
//     removes Claude Code's team folders and the team's state.
//
// Both are checked to have removed every worktree. It prints median, p90 and
// min per variant and median(teamctl)/median(git) against a target of 1.0x (issue 33);
// the exit status is 1 when that target is missed. Each variant's processor
// time (the benchmark's and its children's) is printed beside its wall time;
// -v then runs each once more and prints every git command it ran with its
// wall and processor time.
package main

import (
	"context"
	"flag"
	"io"

	"github.com/teamctl/teamctl/internal/bench/cleanbench"
	"github.com/teamctl/teamctl/internal/bench/world"
)

func main() {
	var cfg cleanbench.Config
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.IntVar(&cfg.Rounds, "n", 10, "timed rounds (each runs every variant once)")
	flag.IntVar(&cfg.Worktrees, "worktrees", 16, "members with a worktree")
	flag.IntVar(&cfg.Warmup, "warmup", 1, "untimed rounds first")
	flag.BoolVar(&cfg.Trace, "v", false, "then each variant once more, each git command printed with its wall and processor time")
	flag.Parse()
	world.Main("bench/clean", *asJSON, func(ctx context.Context, log io.Writer) (*cleanbench.Report, error) {
		return cleanbench.Run(ctx, cfg, log)
	}, cleanbench.Print)
}
