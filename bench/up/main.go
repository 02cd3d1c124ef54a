// Command up measures the wall time of `teamctl up` for a team of stand-in agents
// and compares it with two baselines measured in the same run:
//
//	go run ./bench/up              # 16 members, 15 rounds after 2 warm-up rounds
//	go run ./bench/up -n 30 -members 8 -json
//
// The team is a lead and members-1 teammates, all teamctl's hidden stand-in agent,
// in layout main-vertical. The three variants, interleaved round by round, each
// run in a fresh world (its own HOME, CLAUDE_CONFIG_DIR, XDG_STATE_HOME and
// TMUX_TMPDIR, so never the user's tmux server) that is torn down after timing:
//
//   - per-command: what smug and tmuxinator do, one tmux process per command
//     (new-session, a split-window per teammate, select-layout main-vertical),
//     each exec'd from Go, no shell;
//   - single: the same commands chained with ";" in one tmux invocation, the floor;
//   - teamctl: `teamctl up layout.yaml`, from process start until it returns.
//
// The baselines' panes run exactly the argv and environment teamctl gives each
// member (from launch.Plan). It prints median, p90 and min per variant, and
// median(teamctl)/median(per-command) against a target of 1.3x; the exit status
// is 1 when that target is missed.
package main

import (
	"context"
	"flag"
	"io"

	"github.com/teamctl/teamctl/internal/bench/upbench"
	"github.com/teamctl/teamctl/internal/bench/world"
)

func main() {
	var cfg upbench.Config
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.IntVar(&cfg.Rounds, "n", 15, "timed rounds (each runs every variant once)")
	flag.IntVar(&cfg.Members, "members", 16, "team size: a lead and members-1 teammates")
	flag.IntVar(&cfg.Warmup, "warmup", 2, "untimed rounds first")
	flag.BoolVar(&cfg.Trace, "v", false, "then trace one more up of each team: its steps and their times")
	flag.Parse()
	world.Main("bench/up", *asJSON, func(ctx context.Context, log io.Writer) (*upbench.Report, error) { return upbench.Run(ctx, cfg, log) }, upbench.Print)
}
