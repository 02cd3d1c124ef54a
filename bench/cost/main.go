// Command cost measures the CPU the supervisor spends following a busy team,
// against a reference watcher that polls every pane the way claude-squad does:
//
//	go run ./bench/cost                # 32 members, 50 lines/s each, 30s windows
//	go run ./bench/cost -members 8 -duration 10s -json
//
// It brings up one team in a fresh world (its own HOME, CLAUDE_CONFIG_DIR,
// XDG_STATE_HOME and TMUX_TMPDIR, so never the user's tmux server): a lead and
// members-1 teammates, all teamctl's stand-in agent running lines:RATE:DUR
// (RATE lines of log output a second, for longer than the whole measurement).
// Once every pane has printed, it measures three windows of -duration each, in
// sequence, on that same team under the same steady load:
//
//  1. supervisor: the team's supervisor (`teamctl supervise`, started by
//     `teamctl up`) runs alone. Its CPU is utime+stime from /proc/PID/stat of
//     the supervisor and of its one child, the `tmux -C` control client it
//     reads all output through (tmux's server writes to that client's stdout
//     itself, so the client costs next to nothing, but it is counted), in
//     clock ticks of `getconf CLK_TCK` (100 assumed when getconf fails; the
//     report says which). Then the supervisor is stopped (SIGTERM to its pid).
//  2. reference: a watcher in this process does what claude-squad does: every
//     500ms it runs `tmux capture-pane -p -J -t %N` for every pane, one tmux
//     process per pane, one after another, and hashes each screen to see
//     whether it changed. Its CPU is the window's delta of
//     getrusage(RUSAGE_SELF) + getrusage(RUSAGE_CHILDREN) (its tmux clients).
//  3. none: no watcher at all, as the baseline of the tmux server's own CPU.
//
// Sequential windows on one team keep the comparison fair: the same panes, the
// same output rate, neither watcher competing with the other for the CPUs or
// the tmux server. Each window's length by the wall clock is printed beside
// the processor time. The tmux server's CPU (/proc/PID/stat) is measured in
// every window, and what it did beyond window 3's, per second, is work the
// watcher made it do (formatting every pane's output for the supervisor's
// control client; answering the reference's captures): each watcher's cost
// is its own CPU plus that. The targets: the supervisor's cost / the
// reference's <= 0.3x (the processes' CPU alone is printed too), and the
// supervisor (with its control client) < 3% of one core.
//
// With -transcripts (on by default), window 1 is followed by window 1b on
// the same supervisor and the same printing: three pairs of windows of a
// third of -duration each, interleaved (so that what else the machine does
// weighs on both alike), the first of each pair with the transcripts still,
// the second with the first -transcript-members members' Claude Code
// transcripts growing, -transcripts bytes a second each (realistic lines,
// internal/transcriptgen, appended every 100ms). What the supervisor spends
// in the growing windows over the still ones is what following them costs,
// target under 0.5% of one core. Then -followed-mb MB of
// transcripts in all are appended to them, and once the supervisor has counted
// every response (live.json), its VmHWM must be under 40 MiB (its meters keep
// counts, never lines). The exit status is 1 when a target is missed.
package main

import (
	"context"
	"flag"
	"io"
	"time"

	"github.com/teamctl/teamctl/internal/bench/costbench"
	"github.com/teamctl/teamctl/internal/bench/world"
)

func main() {
	var cfg costbench.Config
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.IntVar(&cfg.Members, "members", 32, "team size: a lead and members-1 teammates")
	flag.IntVar(&cfg.Rate, "rate", 50, "lines a second each member prints")
	flag.DurationVar(&cfg.Duration, "duration", 30*time.Second, "length of each measured window")
	flag.DurationVar(&cfg.Every, "every", 500*time.Millisecond, "the reference watcher's poll interval")
	flag.DurationVar(&cfg.Quiet, "quiet", 2*time.Second, "the layout's watchdog.quiet")
	flag.DurationVar(&cfg.Settle, "settle", time.Second, "wait once every pane prints, before the first window (the supervisor's start-up is not measured)")
	flag.IntVar(&cfg.Transcripts, "transcripts", 16<<10, "bytes a second each member's Claude Code transcript grows in a window of its own (0: no such window)")
	flag.IntVar(&cfg.TranscriptMembers, "transcript-members", 16, "how many members' transcripts grow")
	flag.StringVar(&cfg.Bin, "bin", "", "the teamctl binary to measure (default: one built from this checkout), e.g. an earlier build to compare")
	flag.IntVar(&cfg.FollowedMB, "followed-mb", 1024, "MB of transcripts followed in all for the RSS check, after the transcripts' window (0: none)")
	flag.Parse()
	world.Main("bench/cost", *asJSON, func(ctx context.Context, log io.Writer) (*costbench.Report, error) {
		return costbench.Run(ctx, cfg, log)
	}, costbench.Print)
}
