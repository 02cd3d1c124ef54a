// Command rss measures the supervisor's peak resident memory with a big, busy
// team whose every member ends up asking a question:
//
//	go run ./bench/rss                 # 32 members, 50 lines/s each for 10s, then a question each
//	go run ./bench/rss -members 8 -print 5s -json
//
// It brings up one team in a fresh world (its own HOME, CLAUDE_CONFIG_DIR,
// XDG_STATE_HOME and TMUX_TMPDIR, so never the user's tmux server): a lead and
// members-1 teammates, all teamctl's stand-in agent running
// lines:RATE:PRINT,prompt-at:FILE. So the supervisor follows members*RATE
// lines a second for PRINT, then every member asks "Overwrite? (y/n)" and the
// supervisor captures every pane and reports each stall. Once it has reported
// all of them, the benchmark reads VmHWM (peak resident set) and VmRSS from
// the supervisor's /proc/PID/status. The target is VmHWM < 40 MiB; the exit
// status is 1 when it is missed.
package main

import (
	"context"
	"flag"
	"io"
	"time"

	"github.com/teamctl/teamctl/internal/bench/rssbench"
	"github.com/teamctl/teamctl/internal/bench/world"
)

func main() {
	var cfg rssbench.Config
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.IntVar(&cfg.Members, "members", 32, "team size: a lead and members-1 teammates")
	flag.IntVar(&cfg.Rate, "rate", 50, "lines a second each member prints")
	flag.DurationVar(&cfg.Print, "print", 10*time.Second, "how long each member prints before its question")
	flag.DurationVar(&cfg.Quiet, "quiet", 2*time.Second, "the layout's watchdog.quiet")
	flag.Parse()
	world.Main("bench/rss", *asJSON, func(ctx context.Context, log io.Writer) (*rssbench.Report, error) { return rssbench.Run(ctx, cfg, log) }, rssbench.Print)
}
