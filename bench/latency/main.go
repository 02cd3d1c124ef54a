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
	"flag"
	"io"
	"time"

	"github.com/teamctl/teamctl/internal/bench/latencybench"
	"github.com/teamctl/teamctl/internal/bench/world"
)

func main() {
	var cfg latencybench.Config
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.IntVar(&cfg.Rounds, "rounds", 3, "rounds, each a fresh team")
	flag.IntVar(&cfg.Members, "members", 16, "team size: a lead and members-1 teammates")
	flag.DurationVar(&cfg.Quiet, "quiet", 2*time.Second, "the layout's watchdog.quiet")
	flag.DurationVar(&cfg.Base, "base", 3*time.Second, "when the first question appears, after its member starts")
	flag.DurationVar(&cfg.Gap, "gap", 250*time.Millisecond, "between one member's question and the next's")
	flag.Parse()
	world.Main("bench/latency", *asJSON, func(ctx context.Context, log io.Writer) (*latencybench.Report, error) {
		return latencybench.Run(ctx, cfg, log)
	}, latencybench.Print)
}
