// Command usage measures the first read of a team's transcripts — what
// `teamctl usage` does, and a supervisor following members does when it
// starts — against ccusage on the same files, in the same run:
//
//	go run ./bench/usage                       # 200 MB, 5 rounds after 1 warm-up; ccusage from $TEAMCTL_CCUSAGE
//	go run ./bench/usage -mb 50 -ccusage PATH -json
//
// The transcripts (internal/transcriptgen, written once, untimed) are shaped
// as Claude Code writes them: responses on several lines, subagents' files,
// tool output and request records making up most of the bytes. Timed,
// interleaved: teamctl (usage.Meter of each session, first Update, in
// process) and ccusage (`ccusage claude session --json --offline`). Both must
// find the same output tokens. It prints teamctl's MB/s (target >= 150) and
// median(teamctl)/median(ccusage) (target <= 0.3x); exit 1 when a target is
// missed.
package main

import (
	"context"
	"flag"
	"io"
	"os"

	"github.com/teamctl/teamctl/internal/bench/usagebench"
	"github.com/teamctl/teamctl/internal/bench/world"
)

func main() {
	var cfg usagebench.Config
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.IntVar(&cfg.MB, "mb", 200, "megabytes of transcripts")
	flag.IntVar(&cfg.Rounds, "n", 5, "timed rounds (each runs every variant once)")
	flag.IntVar(&cfg.Warmup, "warmup", 1, "untimed rounds first")
	flag.StringVar(&cfg.CCUsage, "ccusage", os.Getenv("TEAMCTL_CCUSAGE"), "the ccusage binary")
	flag.Parse()
	world.Main("bench/usage", *asJSON, func(ctx context.Context, log io.Writer) (*usagebench.Report, error) {
		return usagebench.Run(ctx, cfg, log)
	}, usagebench.Print)
}
