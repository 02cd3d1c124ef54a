package team

import (
	"context"
	"os/exec"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/selfexe"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
	"github.com/teamctl/teamctl/trust"
)

// The verbs reach the world through these small interfaces, declared here
// where they are used, so that their decisions can be tested with a fake
// tmux, a fake clock and fake signals (fakes_test.go) in milliseconds, as the
// supervisor's are (supervisor/deps.go). realWorld is the one place that
// makes the real ones.

// tmuxServer is what the verbs ask of a team's tmux server (*tmux.Server).
type tmuxServer interface {
	ListPanes(ctx context.Context) ([]tmux.Pane, error)
	Run(ctx context.Context, args ...string) (string, error)
	RunBatch(ctx context.Context, b *tmux.Batch) ([]string, error)
	// StartBatch is RunBatch on a server it may start.
	StartBatch(ctx context.Context, b *tmux.Batch) ([]string, error)
	KillServer(ctx context.Context) error
	// ReplacePane relaunches a pane's member in a new pane in its place,
	// named for the member in the same batch.
	ReplacePane(ctx context.Context, old, dir string, env, argv []string, member string) (tmux.NewPane, error)
	CapturePane(ctx context.Context, pane string) (string, error)
	// TypeText types text into a pane as keys, with no Enter; Enter
	// presses one.
	TypeText(ctx context.Context, pane, text string) error
	Enter(ctx context.Context, pane string) error
	CaptureHistory(ctx context.Context, pane string, n int) ([]string, error)
	ShowOption(ctx context.Context, name string) (string, error)
	AttachCmd(ctx context.Context, target, message string) *exec.Cmd
	FollowPane(ctx context.Context, target, pane string, n int, print func([]string)) error
}

// clock tells the time that the verbs record (when a member started, when
// the team stopped, when a message was written). Waits have deadlines of
// their own (a context, proc's loop).
type clock interface {
	Now() time.Time
}

// processes ends and waits for the members' processes (internal/proc): the
// one stop loop, the wait for teammates asked to shut down, and the team's
// strays.
type processes interface {
	End(ctx context.Context, targets []proc.Target, grace time.Duration) proc.EndResult
	Wait(ctx context.Context, targets []proc.Target, d time.Duration) map[proc.Target]bool
	EndStrays(ctx context.Context, socketPath string, grace time.Duration) []int
}

// world is what the verbs act on besides the team's folder.
type world struct {
	// tmux is the tmux server of the team called name.
	tmux func(name string) tmuxServer
	// checkTmux refuses a tmux too old for teamctl (tmux.CheckVersion).
	checkTmux func(ctx context.Context) error
	clock     clock
	procs     processes
	// teamctl is the path of this teamctl, which a relaunched member's Claude
	// Code hooks call (selfexe.Path).
	teamctl func() (string, error)
	// trustOf says whether Claude Code trusts each Claude Code member's
	// folder (trust.Of, which asks git where its repository is).
	trustOf func(ctx context.Context, l *layouts.Layout) []trust.Folder
	// spawnSupervisor starts the team's supervisor, this teamctl's, to wait
	// for the team up makes (spawnSupervisor); nil: up starts it after
	// (Team.StartSupervisor), as the decision tests' worlds do.
	spawnSupervisor func(exe, team string) (*pendingSupervisor, error)
}

// realWorld is the real tmux (tmuxBin, "" for tmux from PATH), the wall
// clock and real signals.
func realWorld(tmuxBin string) world {
	return world{
		tmux: func(name string) tmuxServer { return teamServers(name, tmuxBin) },
		checkTmux: func(ctx context.Context) error {
			_, err := tmux.CheckVersion(ctx, tmuxBin)
			return err
		},
		clock:           realClock{},
		procs:           realProcs{},
		teamctl:         selfexe.Path,
		trustOf:         trust.Of,
		spawnSupervisor: spawnSupervisor,
	}
}

// serverOf is the private tmux server of the team called name.
func serverOf(name, tmuxBin string) *tmux.Server {
	return &tmux.Server{Socket: state.SocketName(name), Bin: tmuxBin}
}

// teamServers is the team's tmux server, or its servers on every host
// (tmux.Group) when state.json says members run on other hosts.
func teamServers(name, tmuxBin string) tmuxServer {
	local := serverOf(name, tmuxBin)
	st, err := state.Load(name)
	if err != nil || len(st.Hosts) == 0 {
		return local
	}
	g, err := groupOf(name, local, st.Hosts)
	if err != nil {
		return local
	}
	return g
}

// realClock is the wall clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// realProcs signals real processes.
type realProcs struct{}

func (realProcs) End(ctx context.Context, targets []proc.Target, grace time.Duration) proc.EndResult {
	return proc.End(ctx, targets, grace)
}

func (realProcs) Wait(ctx context.Context, targets []proc.Target, d time.Duration) map[proc.Target]bool {
	return proc.Wait(ctx, targets, d)
}

func (realProcs) EndStrays(ctx context.Context, socketPath string, grace time.Duration) []int {
	return proc.EndStrays(ctx, socketPath, grace)
}
