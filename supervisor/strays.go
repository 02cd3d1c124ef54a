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
// process groups (Claude Code's Bash commands run in sessions of their own), found by the TMUX variable naming the server's
// socket path: SIGTERM, grace, then SIGKILL. It returns their pids.
func EndStrays(ctx context.Context, socketPath string, grace time.Duration) []int {
	if socketPath == "" {
		return nil
	}
	socketPrefix := socketPath + ","
	pids := proc.Matching(func(env map[string]string) bool { return strings.HasPrefix(env["TMUX"], socketPrefix) })
	if len(pids) == 0 {
		return nil
	}
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	waitExit := func(d time.Duration) {
		deadline := time.Now().Add(d)
		for _, pid := range pids {
			for proc.Alive(pid) && time.Now().Before(deadline) && ctx.Err() == nil {
				time.Sleep(20 * time.Millisecond) // poll interval while waiting for an exit
			}
		}
	}
	waitExit(grace)
	for _, pid := range pids {
		if proc.Alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	waitExit(2 * time.Second)
	return pids
}

// EndTree ends pid and its descendants: SIGTERM to each, up to grace for them
// to go, then SIGKILL to what is left. It returns the pids it signalled.
func EndTree(ctx context.Context, pid int, grace time.Duration) []int {
	own := proc.Lineage() // a clean run from inside the pane must not end itself
	pids := slices.DeleteFunc(proc.Tree(pid), func(p int) bool { return own[p] })
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGTERM)
	}
	wait := func(d time.Duration) bool {
		deadline := time.Now().Add(d)
		for {
			alive := false
			for _, p := range pids {
				if proc.Alive(p) {
					alive = true
					break
				}
			}
			if !alive {
				return true
			}
			if time.Now().After(deadline) || ctx.Err() != nil {
				return false
			}
			time.Sleep(10 * time.Millisecond) // poll interval while waiting for exits
		}
	}
	if !wait(grace) {
		for _, p := range pids {
			if proc.Alive(p) {
				syscall.Kill(p, syscall.SIGKILL)
			}
		}
		wait(2 * time.Second)
	}
	return pids
}
