// Command serve measures `teamctl serve`: how soon a change written to the
// team's folder is in the page, what it costs to serve open pages of a busy
// team, and whether many page loads at once are all answered:
//
//	go run ./bench/serve                 # 16 members, 20 lines/s each, 10 pages, 40 changes, 30s idle, 100 loads
//	go run ./bench/serve -samples 20 -duration 10s -json
//
// It brings up one team in a fresh world (its own HOME, CLAUDE_CONFIG_DIR,
// XDG_STATE_HOME and TMUX_TMPDIR): a lead and members-1 teammates, all
// teamctl's stand-in printing lines:RATE, and its supervisor; then `teamctl
// serve --team T` on a loopback port, and headless Chromium (Debian's
// chromium, through chromedp) with -pages tabs of the page, logged in with
// the URL serve printed.
//
//  1. Latency, as bench/top measures it, in the first page (the detail of
//     mate-01 open): -samples changes, every 300-500 ms, half an event
//     appended to events.jsonl, half mate-01's restart count in state.json
//     (under the team's lock, as `teamctl restart` writes it). The clock
//     starts just before the write; it stops at the page's own Date.now()
//     when a MutationObserver first finds the change in the page's text (the
//     event in the detail, ↻N in the row). p50, p95, max; target p95 < 300 ms.
//  2. Idle, -duration: the members print, the pages stay open (the detail
//     closed: an open one follows its member's pane as it prints). serve's
//     utime+stime (and its reaped children's) from /proc: target < 1% of one
//     core; its VmRSS and VmHWM: target VmHWM < 40 MiB.
//  3. -loads page loads at once on loopback, each on a connection of its own
//     (the page, its script, its style, the view): target no error.
//
// The exit status is 1 when a target is missed.
package main

import (
	"context"
	"flag"
	"io"
	"time"

	"github.com/teamctl/teamctl/internal/bench/servebench"
	"github.com/teamctl/teamctl/internal/bench/world"
)

func main() {
	var cfg servebench.Config
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.IntVar(&cfg.Members, "members", 16, "team size: a lead and members-1 teammates")
	flag.IntVar(&cfg.Rate, "rate", 20, "lines a second each member prints")
	flag.IntVar(&cfg.Samples, "samples", 40, "changes written for the latency (half events, half state)")
	flag.IntVar(&cfg.Pages, "pages", 10, "pages open (tabs of one headless Chromium)")
	flag.IntVar(&cfg.Loads, "loads", 100, "page loads at once")
	flag.DurationVar(&cfg.Duration, "duration", 30*time.Second, "length of the idle window")
	flag.DurationVar(&cfg.Settle, "settle", 2*time.Second, "wait after the latency part before the idle window")
	flag.DurationVar(&cfg.Pace, "pace", 300*time.Millisecond, "least pause between two changes (up to 5/3 of it, at random)")
	flag.Parse()
	world.Main("bench/serve", *asJSON, func(ctx context.Context, log io.Writer) (*servebench.Report, error) {
		return servebench.Run(ctx, cfg, log)
	}, servebench.Print)
}
