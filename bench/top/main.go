// Command top measures `teamctl top`: how soon a change written to the team's
// folder is on its screen, and what it costs to keep watching a busy team,
// against `teamctl status -w` in the same run:
//
//	go run ./bench/top                 # 16 members, 20 lines/s each, 40 changes, 30s windows
//	go run ./bench/top -members 8 -samples 20 -duration 10s -json
//
// It brings up one team in a fresh world (its own HOME, CLAUDE_CONFIG_DIR,
// XDG_STATE_HOME and TMUX_TMPDIR, so never the user's tmux server): a lead and
// members-1 teammates, all teamctl's stand-in agent running lines:RATE (RATE
// lines of log output a second, steadily, for longer than the run), and its
// supervisor. The terminal is a pane of another tmux server of the world
// ("viewer", 100x30), running `teamctl top --team T`; top selects the first
// member, the lead, so the pane whose bottom it shows prints all the time.
//
//  1. Latency, -samples changes, one after another, every 300-500 ms: half of
//     them an event appended to events.jsonl (state.EventLog, as every
//     writer appends), half a member's restart count changed in state.json
//     (state.Save under the team's lock, as `teamctl restart` writes it). The
//     clock starts just before the write; it stops at the %output notification
//     of the viewer's pane (read through a control client of the viewer
//     server, tmux.Coalesce 0) after which a capture-pane of the pane shows
//     the change: the event's line in the feed, or the new count in the
//     member's row. p50, p95 and max in ms; target p95 < 200 ms.
//  2. CPU, a window of -duration each, in turn on the same team under the
//     same load, -rounds times: top, then `teamctl status -w` (respawned in
//     the same pane). A window counts the watcher's utime+stime, its reaped
//     children's (cutime+cstime: status -w runs tmux list-panes every second)
//     and its live children's (top's tmux -C client), from /proc, in clock
//     ticks. Targets: top < 1% of one core; the ratio to status -w is
//     reported. Then top's peak resident memory (VmHWM): target < 40 MiB.
//
// The exit status is 1 when a target is missed.
package main

import (
	"context"
	"flag"
	"io"
	"time"

	"github.com/teamctl/teamctl/internal/bench/topbench"
	"github.com/teamctl/teamctl/internal/bench/world"
)

func main() {
	var cfg topbench.Config
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.IntVar(&cfg.Members, "members", 16, "team size: a lead and members-1 teammates")
	flag.IntVar(&cfg.Rate, "rate", 20, "lines a second each member prints")
	flag.IntVar(&cfg.Samples, "samples", 40, "changes written for the latency (half events, half state)")
	flag.IntVar(&cfg.Rounds, "rounds", 1, "CPU windows of each watcher, taken in turn")
	flag.DurationVar(&cfg.Duration, "duration", 30*time.Second, "length of each CPU window")
	flag.DurationVar(&cfg.Settle, "settle", 2*time.Second, "wait after a watcher starts before its window (its start-up is not measured)")
	flag.DurationVar(&cfg.Pace, "pace", 300*time.Millisecond, "least pause between two changes of the latency part (up to 5/3 of it, at random)")
	flag.Parse()
	world.Main("bench/top", *asJSON, func(ctx context.Context, log io.Writer) (*topbench.Report, error) { return topbench.Run(ctx, cfg, log) }, topbench.Print)
}
