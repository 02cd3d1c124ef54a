package supervisor

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/sshconn"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
	"github.com/teamctl/teamctl/worktrees"
)

// The daemon reaches the world through these small interfaces, declared here
// where they are used, so that its decisions can be tested with a fake tmux,
// a fake clock and fake processes (decisions_test.go) in milliseconds.

// tmuxServer is what the daemon asks of the team's tmux server.
type tmuxServer interface {
	ListPanes(ctx context.Context) ([]tmux.Pane, error)
	RunBatch(ctx context.Context, b *tmux.Batch) ([]string, error)
	Run(ctx context.Context, args ...string) (string, error)
	Type(ctx context.Context, pane, text string) error
	// ReplacePane relaunches a pane's member in a new pane in its place,
	// named for the member in the same batch.
	ReplacePane(ctx context.Context, old, dir string, env, argv []string, member string) (tmux.NewPane, error)
	// Control attaches a control client to the session target names.
	Control(ctx context.Context, target string) (controlClient, error)
	// Listening says whether the server still listens on its socket (tmux's
	// own "no server" may also mean "too busy to connect now").
	Listening() bool
}

// controlClient is a tmux control-mode client: the panes' output and the
// server's notifications, and commands answered in order.
type controlClient interface {
	Command(ctx context.Context, args ...string) ([]string, error)
	Notes() <-chan tmux.Notification
	Done() <-chan struct{}
	Err() error
	Close() error
}

// clock tells the time and runs functions later.
type clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) timer
}

// timer is a function waiting to run (time.Timer has these).
type timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// processes is what the daemon asks of the machine's processes
// (internal/proc, claudecode), so that following the team the lead claimed,
// relaunching it to take its own, and ending a member or a second run of
// one are tested without real processes.
type processes interface {
	// Tree is pid and the processes under it.
	Tree(pid int) []int
	// ClaimedTeam is the Claude Code team in configDir whose config names
	// process pid (its pid and start time) as its lead.
	ClaimedTeam(configDir string, pid int) (name string, cfg *claudecode.TeamConfig, ok bool)
	// EndGroup ends the process group pgid, the one way the daemon ends
	// processes: it waits up to wait for the group to end by itself, then
	// SIGTERM, up to grace, SIGKILL (internal/proc's one stop loop); then
	// it calls then (when not nil). All of it off the caller's goroutine:
	// the daemon's loop never waits for a process to end.
	EndGroup(ctx context.Context, pgid int, wait, grace time.Duration, then func())
}

// gitWork is what the conflict radar (radar.go) asks of git, through
// package worktrees.
type gitWork interface {
	// Check refuses a git that cannot tell what a merge would do.
	Check(ctx context.Context) error
	// ReadWork is a member's whole work, uncommitted included, as a side
	// of a merge.
	ReadWork(ctx context.Context, wt state.Worktree) (worktrees.Side, error)
	// Base is the member's base as it is now, when it is a branch (a
	// commit or a tag never moves: ok false).
	Base(ctx context.Context, wt state.Worktree) (side worktrees.Side, ok bool, err error)
	// Compare is what merging each pair of sides would do.
	Compare(ctx context.Context, sides []worktrees.Side, pairs [][2]int) ([]worktrees.Compared, error)
	// RefFiles are the files whose change means a member's branch, or its
	// base, moved.
	RefFiles(ctx context.Context, wt state.Worktree) ([]string, error)
	// ReadRemote is the whole work of a member's worktree on host h, fetched
	// into this machine's repository (where localCwd is), as a side; and
	// its base there, fetched too (hasBase false: none).
	ReadRemote(ctx context.Context, localCwd string, h state.Host, rw state.RemoteWorktree, team string) (side, base worktrees.Side, hasBase bool, err error)
}

// realServer is the team's real tmux server.
type realServer struct{ *tmux.Server }

func (s realServer) Control(ctx context.Context, target string) (controlClient, error) {
	c, err := s.Server.Control(ctx, target)
	if err != nil {
		return nil, err // a nil *tmux.Control must not become a non-nil interface
	}
	return c, nil
}

// realClock is the wall clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) timer {
	return time.AfterFunc(d, f)
}

// realProcs are the machine's processes.
type realProcs struct{}

func (realProcs) Tree(pid int) []int { return proc.Tree(pid) }
func (realProcs) ClaimedTeam(configDir string, pid int) (string, *claudecode.TeamConfig, bool) {
	return claudecode.ClaimedTeam(configDir, pid)
}
func (realProcs) EndGroup(ctx context.Context, pgid int, wait, grace time.Duration, then func()) {
	go func() {
		g := []proc.Target{proc.Group(pgid)}
		if wait <= 0 || !proc.Wait(ctx, g, wait)[g[0]] {
			proc.End(ctx, g, grace)
		}
		if then != nil {
			then()
		}
	}()
}

// realGit is git.
type realGit struct{}

func (realGit) Check(ctx context.Context) error { return worktrees.CheckMergeTree(ctx) }
func (realGit) ReadWork(ctx context.Context, wt state.Worktree) (worktrees.Side, error) {
	if !filepath.IsAbs(wt.Main) || (wt.Path != "" && !filepath.IsAbs(wt.Path)) {
		return worktrees.Side{}, fmt.Errorf("the worktree %q of %q is not at an absolute path", wt.Path, wt.Main)
	}
	w, err := worktrees.ReadWork(ctx, wt.Main, wt.Path, wt.Branch)
	if err != nil {
		return worktrees.Side{}, err
	}
	return worktrees.WorkSide(wt.Member, wt.Main, w), nil
}
func (realGit) Base(ctx context.Context, wt state.Worktree) (worktrees.Side, bool, error) {
	b, err := worktrees.FindBase(ctx, wt.Main, wt.Base)
	if err != nil || !b.Branch {
		return worktrees.Side{}, false, err
	}
	return worktrees.Side{Name: b.Name, Main: wt.Main, Head: b.Commit}, true, nil
}

// Compare merges one pair at a time: the radar runs in the background, and
// a burst of git commands would be felt by the members' own.
func (realGit) Compare(ctx context.Context, sides []worktrees.Side, pairs [][2]int) ([]worktrees.Compared, error) {
	return worktrees.CompareAll(ctx, sides, pairs, 1)
}
func (realGit) RefFiles(ctx context.Context, wt state.Worktree) ([]string, error) {
	return worktrees.RefFiles(ctx, wt.Main, wt.Path, wt.Branch, wt.Base)
}
func (realGit) ReadRemote(ctx context.Context, localCwd string, h state.Host, rw state.RemoteWorktree, team string) (worktrees.Side, worktrees.Side, bool, error) {
	var none worktrees.Side
	if h.Name == "" {
		return none, none, false, fmt.Errorf("%s's host %s is not in the team's state", rw.Member, rw.Host)
	}
	repo, err := worktrees.FindRepo(ctx, localCwd)
	if err != nil {
		return none, none, false, fmt.Errorf("the team's repository here: %w", err)
	}
	dir, err := state.SSHDir()
	if err != nil {
		return none, none, false, err
	}
	remote := worktrees.RemoteRepo{Host: sshconn.New(h.SSH, dir), Name: h.Name, Dir: rw.Main}
	w, err := remote.FetchWork(ctx, repo.Main, team, rw.Member, rw.Path, rw.Branch, rw.Base)
	if err != nil {
		return none, none, false, err
	}
	side := worktrees.Side{Name: rw.Member, Main: repo.Main, Head: w.Work, Path: h.Name + ":" + rw.Path}
	if w.Base == "" {
		return side, none, false, nil
	}
	return side, worktrees.Side{Name: rw.Base, Main: repo.Main, Head: w.Base}, true, nil
}
