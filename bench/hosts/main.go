// Command hosts measures members on another host against members here, in
// one run: how long after a member's question appears, beyond the
// watchdog's quiet period, the supervisor reports its stall, and the
// supervisor's processor time meanwhile.
//
//	go run ./bench/hosts                 # 8 members a side, 3 rounds, quiet 1s
//	go run ./bench/hosts -rounds 5 -json
//
// The other host is a network namespace the benchmark makes, with Debian's
// openssh-server listening there (internal/testhost: root is needed, and
// openssh-server installed). Each round brings up a team of plain processes
// here, then one whose members are on that host (and one idle member here,
// as a team needs), each member running
// sleep; date > FILE; printf 'Overwrite? (y/n) '; read, its question at
// base + i*gap after start. latency = its first stall event's time − FILE's
// time − watchdog.quiet. The target: the remote p95 within 20 ms of the
// local p95; exit 1 when missed.
package main

import (
	"context"
	"flag"
	"io"
	"time"

	"github.com/teamctl/teamctl/internal/bench/hostsbench"
	"github.com/teamctl/teamctl/internal/bench/world"
)

func main() {
	var cfg hostsbench.Config
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.IntVar(&cfg.Rounds, "rounds", 3, "rounds, each a fresh team on each side")
	flag.IntVar(&cfg.Members, "members", 8, "members a side")
	flag.DurationVar(&cfg.Quiet, "quiet", time.Second, "the layout's watchdog.quiet")
	flag.DurationVar(&cfg.Base, "base", 3*time.Second, "when the first question appears, after its member starts")
	flag.DurationVar(&cfg.Gap, "gap", 250*time.Millisecond, "between one member's question and the next's")
	flag.Parse()
	world.Main("bench/hosts", *asJSON, func(ctx context.Context, log io.Writer) (*hostsbench.Report, error) {
		return hostsbench.Run(ctx, cfg, log)
	}, hostsbench.Print)
}
