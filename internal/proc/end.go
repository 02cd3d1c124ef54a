package proc

import (
	"context"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Target is what End stops: one process, or a whole process group (a pane's
// program and everything it started in its group).
type Target struct {
	PID   int
	Group bool
}

// Process and Group make targets.
func Process(pid int) Target { return Target{PID: pid} }
func Group(pgid int) Target  { return Target{PID: pgid, Group: true} }

func (t Target) signal(sig syscall.Signal) {
	if t.Group {
		syscall.Kill(-t.PID, sig)
	} else {
		syscall.Kill(t.PID, sig)
	}
}

// alive reports whether t still has a living (not zombie) process; groups
// comes from one pass over /proc for all the group targets of a round.
func (t Target) alive(groups map[int]bool) bool {
	if t.Group {
		return groups[t.PID]
	}
	return Alive(t.PID)
}

// KillWait bounds the wait for targets to go after SIGKILL (they cannot
// refuse it, but the kernel and their parents take a moment).
var KillWait = 5 * time.Second

// pollEvery is how often End and Wait look at /proc while waiting for exits.
const pollEvery = 20 * time.Millisecond

// EndResult says how the targets of End went.
type EndResult struct {
	Terminated []Target // gone by themselves within the grace (or already gone)
	Killed     []Target // needed SIGKILL
}

// End is the one stop loop: SIGTERM to every target still alive, up to grace
// for them to go, SIGKILL to what is left, and a wait (KillWait at most) for
// that too, so that whatever comes next finds them gone. Targets that had
// already ended count as terminated.
func End(ctx context.Context, targets []Target, grace time.Duration) EndResult {
	var res EndResult
	if len(targets) == 0 {
		return res
	}
	groups := liveGroupsIf(targets)
	for _, t := range targets {
		if t.alive(groups) {
			t.signal(syscall.SIGTERM)
		}
	}
	gone := Wait(ctx, targets, grace)
	var left []Target
	for _, t := range targets {
		if gone[t] {
			res.Terminated = append(res.Terminated, t)
			continue
		}
		t.signal(syscall.SIGKILL)
		left = append(left, t)
	}
	res.Killed = left
	if len(left) > 0 {
		Wait(ctx, left, KillWait)
	}
	return res
}

// Wait waits until none of targets has a living process, or d passes, or ctx
// ends; it returns those that are gone.
func Wait(ctx context.Context, targets []Target, d time.Duration) map[Target]bool {
	gone := map[Target]bool{}
	Until(ctx, d, func() bool {
		groups := liveGroupsIf(targets)
		for _, t := range targets {
			if !t.alive(groups) {
				gone[t] = true
			}
		}
		return len(gone) == len(targets)
	})
	return gone
}

// Until is the one wait for something processes do: it checks cond at once
// and then every pollEvery until it holds (true), d passes or ctx ends (false).
func Until(ctx context.Context, d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		if cond() {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}

// liveGroupsIf says which of targets' groups are alive. Most are decided
// without reading all of /proc (a pass over hundreds of processes, every
// pollEvery while a team goes down): a group whose leader lives is alive, one
// that kill(-pgid, 0) no longer finds is not; only the rest (a zombie
// leader, or members left without it) need LiveGroups' pass, once for all.
func liveGroupsIf(targets []Target) map[int]bool {
	live := map[int]bool{}
	var unsure []int
	for _, t := range targets {
		if !t.Group {
			continue
		}
		if st, err := ReadStat(t.PID); err == nil && st.PGID == t.PID && st.Living() {
			live[t.PID] = true
			continue
		}
		if err := syscall.Kill(-t.PID, 0); err == syscall.ESRCH {
			continue
		}
		unsure = append(unsure, t.PID)
	}
	if len(unsure) > 0 {
		all := LiveGroups()
		for _, g := range unsure {
			live[g] = all[g]
		}
	}
	return live
}

// Processes makes a target of each pid.
func Processes(pids []int) []Target {
	out := make([]Target, len(pids))
	for i, p := range pids {
		out[i] = Process(p)
	}
	return out
}

// EndTree ends pid and its descendants, sparing this process and its
// ancestors (a clean run from inside the pane must not end itself). It
// returns the pids it signalled.
func EndTree(ctx context.Context, pid int, grace time.Duration) []int {
	own := Lineage()
	pids := slices.DeleteFunc(Tree(pid), func(p int) bool { return own[p] })
	End(ctx, Processes(pids), grace)
	return pids
}

// EndStrays ends the processes of a tmux server's panes that left their
// panes' process groups (Claude Code's Bash commands run in sessions of their
// own), found by the TMUX variable naming the server's socket path: nothing
// of another server (another team, or the same team name under another
// TMUX_TMPDIR) matches. It returns their pids.
func EndStrays(ctx context.Context, socketPath string, grace time.Duration) []int {
	if socketPath == "" {
		return nil
	}
	prefix := socketPath + ","
	pids := Matching(func(env map[string]string) bool { return strings.HasPrefix(env["TMUX"], prefix) })
	End(ctx, Processes(pids), grace)
	return pids
}
