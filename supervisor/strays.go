package supervisor

import (
	"context"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
)

// EndStrays ends the processes of a tmux server's panes that left their panes'
// process groups (Claude Code's Bash commands run in sessions of their own),
// found by the TMUX variable naming the server's socket path. It returns their pids.
func EndStrays(ctx context.Context, socketPath string, grace time.Duration) []int {
	if socketPath == "" {
		return nil
	}
	socketPrefix := socketPath + ","
	pids := proc.Matching(func(env map[string]string) bool { return strings.HasPrefix(env["TMUX"], socketPrefix) })
	endPIDs(ctx, pids, grace)
	return pids
}

// EndTree ends pid and its descendants. It returns the pids it signalled.
func EndTree(ctx context.Context, pid int, grace time.Duration) []int {
	own := proc.Lineage() // a clean run from inside the pane must not end itself
	pids := slices.DeleteFunc(proc.Tree(pid), func(p int) bool { return own[p] })
	endPIDs(ctx, pids, grace)
	return pids
}

// endPIDs sends pids SIGTERM, waits up to grace for them to go, SIGKILLs what
// is left and waits (up to 2 s) for that too.
func endPIDs(ctx context.Context, pids []int, grace time.Duration) {
	if len(pids) == 0 {
		return
	}
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGTERM)
	}
	if waitPIDs(ctx, pids, grace) {
		return
	}
	for _, p := range pids {
		if proc.Alive(p) {
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
	waitPIDs(ctx, pids, 2*time.Second)
}

// waitPIDs waits until none of pids is alive, or d passes; it reports whether
// they are all gone.
func waitPIDs(ctx context.Context, pids []int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if !slices.ContainsFunc(pids, proc.Alive) {
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(10 * time.Millisecond) // poll interval while waiting for exits
	}
}
