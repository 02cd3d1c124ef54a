package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/teamctl/teamctl/cockpit"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team"
)

// topBackend is top's cockpit.Backend and cockpit.Source, a real teamctl: the functions its
// commands call, so that every action of the cockpit is the command's own code
// path and lands in events.jsonl as the command's does. Its verbs are team's
// Actions (the adapter the page acts through too), as a person at the terminal.
type topBackend struct {
	team.Actions
}

var (
	_ cockpit.Backend = topBackend{}
	_ cockpit.Source  = topBackend{}
)

// UpTeams are the teams that are up, by name.
func (t topBackend) UpTeams(ctx context.Context) ([]string, error) {
	ts, err := team.List(ctx, t.TmuxBin)
	if err != nil {
		return nil, err
	}
	var up []string
	for _, s := range ts {
		if s.Up {
			up = append(up, s.Team)
		}
	}
	return up, nil
}

// Status is `teamctl status` (team's Status: the one place a member's state
// is decided), with the worktrees teamctl made for the members.
func (t topBackend) Status(ctx context.Context, name string) (*cockpit.Snapshot, error) {
	tm, err := t.open(ctx, name)
	if err != nil {
		return nil, err
	}
	s, err := tm.Status(ctx)
	if err != nil {
		return nil, err
	}
	snap := &cockpit.Snapshot{Status: s, Taken: time.Now(), Worktrees: map[string]cockpit.Worktree{}}
	if st, err := state.Load(name); err == nil {
		for _, w := range st.Worktrees {
			snap.Worktrees[w.Member] = cockpit.Worktree{Path: w.Path, Branch: w.Branch}
		}
	}
	return snap, nil
}

// Follow follows the team's panes live through one control client
// (team's Follow), the focused pane's output gathered for cockpit.OutputGather.
func (t topBackend) Follow(ctx context.Context, name string, panes []string) (cockpit.PaneFollow, error) {
	tm, err := t.open(ctx, name)
	if err != nil {
		return nil, err
	}
	return tm.Follow(ctx, panes, team.FollowOptions{Gather: cockpit.OutputGather})
}

// TailEvents follows the team's events from about the last back bytes on.
func (t topBackend) TailEvents(name string, back int64) (cockpit.EventReader, error) {
	return state.TailEvents(name, back)
}

// Watch watches one team's state folder, or every team's (state.Watch).
func (t topBackend) Watch(ctx context.Context, o state.WatchOptions) (*state.Watcher, error) {
	return state.Watch(ctx, o)
}

// Attach is `teamctl attach MEMBER`: the member's pane is selected now (within
// a deadline), and the command returned attaches until the person detaches,
// so it runs under ctx alone.
func (t topBackend) Attach(ctx context.Context, name, member string) (*exec.Cmd, string, error) {
	pctx, cancel := context.WithTimeout(ctx, cockpit.ActionTimeout)
	defer cancel()
	tm, err := t.open(pctx, name)
	if err != nil {
		return nil, "", err
	}
	a, err := tm.Attach(pctx, member)
	if err != nil {
		return nil, "", err
	}
	return a.Cmd(ctx, ""), a.Prefix, nil
}

// DiffCmd is `teamctl diff MEMBER --team T`, run by this very binary on the
// terminal, so it pages as the command does. less keeps the screen until q
// (LESS=R where LESS is unset, not the command's FRX): a diff that fits the
// screen would otherwise be gone the moment the cockpit draws again.
func (t topBackend) DiffCmd(ctx context.Context, name, member string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find teamctl's own binary to show %s's diff: %w", member, err)
	}
	cmd := exec.CommandContext(ctx, exe, "diff", member, "--team", name)
	cmd.Env = os.Environ()
	if _, ok := os.LookupEnv("LESS"); !ok {
		cmd.Env = append(cmd.Env, "LESS=R")
	}
	return cmd, nil
}

// open opens the team called name (each action opens it anew: state changes).
func (t topBackend) open(ctx context.Context, name string) (*team.Team, error) {
	return team.Open(ctx, name, t.TmuxBin)
}
