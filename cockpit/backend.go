package cockpit

// This file is the only one of the cockpit that knows where teamctl's verbs
// and its team-folder contract live (package supervisor today): moving them
// changes this file alone.

import (
	"context"
	"errors"
	"os/exec"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor"
)

// The team's status and events, as `teamctl status --json` and `events --json`
// have them.
type (
	Status           = supervisor.Status
	SupervisorStatus = supervisor.SupervisorStatus
	Member           = supervisor.MemberStatus
	Stall            = supervisor.Stall
	Request          = supervisor.Request
	Event            = supervisor.Event
)

// Teamctl is the Backend and the Source of a real teamctl: the functions its
// commands call, so that every action of the cockpit is the command's own code
// path and lands in events.jsonl as the command's does.
type Teamctl struct {
	TmuxBin string // "" for tmux from PATH
}

var (
	_ Backend = Teamctl{}
	_ Source  = Teamctl{}
)

// UpTeams are the teams that are up, by name.
func (t Teamctl) UpTeams(ctx context.Context) ([]string, error) {
	ts, err := supervisor.ListTeams(ctx, t.TmuxBin)
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

// Status is `teamctl status` (GetStatus: the one place a member's state is
// decided), with the worktrees teamctl made for the members.
func (t Teamctl) Status(ctx context.Context, team string) (*Snapshot, error) {
	s, err := supervisor.GetStatus(ctx, team, t.TmuxBin)
	if err != nil {
		return nil, err
	}
	snap := &Snapshot{Status: s, Taken: time.Now(), Worktrees: map[string]Worktree{}}
	if st, err := state.Load(team); err == nil {
		for _, w := range st.Worktrees {
			snap.Worktrees[w.Member] = Worktree{Path: w.Path, Branch: w.Branch}
		}
	}
	return snap, nil
}

// TailEvents follows the team's events from about the last back bytes on.
func (t Teamctl) TailEvents(team string, back int64) (EventReader, error) {
	return supervisor.TailEvents(team, back)
}

// StateDir is the team's state folder, whose files the feed watches.
func (t Teamctl) StateDir(team string) (string, error) { return state.Dir(team) }

// Answer is `teamctl answer`. Keys that went out but could not be recorded are
// a NotRecordedError: sent, and not to be sent again.
func (t Teamctl) Answer(ctx context.Context, team, member string, keys ...string) error {
	err := supervisor.Answer(ctx, team, member, keys, t.TmuxBin)
	var nr *supervisor.NotRecordedError
	if errors.As(err, &nr) {
		return &NotRecordedError{Err: nr.Err}
	}
	return err
}

// Approve is `teamctl approve MEMBER`.
func (t Teamctl) Approve(ctx context.Context, team, member string) (string, error) {
	return supervisor.AnswerPermission(ctx, team, member, "", true, "")
}

// Deny is `teamctl deny MEMBER [--reason TEXT]`.
func (t Teamctl) Deny(ctx context.Context, team, member, reason string) (string, error) {
	return supervisor.AnswerPermission(ctx, team, member, "", false, reason)
}

// Send is `teamctl send MEMBER TEXT`.
func (t Teamctl) Send(ctx context.Context, team, member, text string) (string, error) {
	return supervisor.Send(ctx, team, member, text)
}

// Restart is `teamctl restart MEMBER`.
func (t Teamctl) Restart(ctx context.Context, team, member string) (int, error) {
	return supervisor.RestartMember(ctx, team, member, t.TmuxBin)
}

// Attach is `teamctl attach MEMBER`: the member's pane is selected now (within
// a deadline), and the command returned attaches until the person detaches,
// so it runs under ctx alone.
func (t Teamctl) Attach(ctx context.Context, team, member string) (*exec.Cmd, string, error) {
	pctx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	a, err := supervisor.PrepareAttach(pctx, team, member, t.TmuxBin)
	if err != nil {
		return nil, "", err
	}
	return a.Cmd(ctx), a.Prefix, nil
}
