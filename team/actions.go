package team

import (
	"context"
	"errors"
	"time"
)

// Actions are the verbs a front-end — top in a terminal, serve's page in a
// browser — acts through on a team it names, each opened anew (state
// changes) and recorded as By says: the zero By is a person at the terminal,
// the web's carries its way in and address. Both cockpits act through this
// one adapter, so an action from either lands in events.jsonl as the
// command's does.
type Actions struct {
	TmuxBin string // "" for tmux from PATH
	By      By
}

// As is a with every action recorded as by b.
func (a Actions) As(b By) Actions {
	a.By = b
	return a
}

func (a Actions) open(ctx context.Context, name string) (*Team, error) {
	tm, err := Open(ctx, name, a.TmuxBin)
	if err != nil {
		return nil, err
	}
	tm.ActingAs(a.By)
	return tm, nil
}

// Answer is `teamctl answer`. Keys that went out but could not be recorded
// are a *NotRecordedError, with what was sent: it happened, and is not to be
// sent again.
func (a Actions) Answer(ctx context.Context, name, member string, x Answer) (Answered, error) {
	tm, err := a.open(ctx, name)
	if err != nil {
		return Answered{}, err
	}
	got, err := tm.Answer(ctx, member, x)
	var nr *NotRecordedError
	if errors.As(err, &nr) && got != nil {
		return *got, nr
	}
	if err != nil || got == nil {
		return Answered{}, err
	}
	return *got, nil
}

// Approve is `teamctl approve MEMBER`: its pending request.
func (a Actions) Approve(ctx context.Context, name, member string) (string, error) {
	tm, err := a.open(ctx, name)
	if err != nil {
		return "", err
	}
	return tm.Approve(ctx, member, "")
}

// Deny is `teamctl deny MEMBER [--reason TEXT]`: its pending request.
func (a Actions) Deny(ctx context.Context, name, member, reason string) (string, error) {
	tm, err := a.open(ctx, name)
	if err != nil {
		return "", err
	}
	return tm.Deny(ctx, member, "", reason)
}

// Send is `teamctl send MEMBER TEXT`.
func (a Actions) Send(ctx context.Context, name, member, text string) (string, error) {
	tm, err := a.open(ctx, name)
	if err != nil {
		return "", err
	}
	return tm.Send(ctx, member, text)
}

// Restart is `teamctl restart MEMBER`.
func (a Actions) Restart(ctx context.Context, name, member string) (int, error) {
	tm, err := a.open(ctx, name)
	if err != nil {
		return 0, err
	}
	return tm.Restart(ctx, member)
}

// Release is `teamctl resume-member MEMBER`: a member its budget held is
// let go; it returns why it was held.
func (a Actions) Release(ctx context.Context, name, member string) (string, error) {
	tm, err := a.open(ctx, name)
	if err != nil {
		return "", err
	}
	h, err := tm.Release(ctx, member)
	return h.Reason, err
}

// Changes is `teamctl diff --stat` of the whole team.
func (a Actions) Changes(ctx context.Context, name string) (*Changes, error) {
	tm, err := a.open(ctx, name)
	if err != nil {
		return nil, err
	}
	return tm.Diff(ctx, nil, DiffStat)
}

// Merge is `teamctl merge MEMBER`: into the branch its worktree was made from.
func (a Actions) Merge(ctx context.Context, name, member string) (*MergeResult, error) {
	tm, err := a.open(ctx, name)
	if err != nil {
		return nil, err
	}
	return tm.Merge(ctx, []string{member}, MergeOptions{})
}

// Screen is what member's pane shows now (Team.Screen).
func (a Actions) Screen(ctx context.Context, name, member string) (string, error) {
	tm, err := a.open(ctx, name)
	if err != nil {
		return "", err
	}
	return tm.Screen(ctx, member)
}

// ScreenInColour is Screen with its colours, as tmux's SGR sequences
// (Team.ScreenInColour): for drawing, never for reading a dialog.
func (a Actions) ScreenInColour(ctx context.Context, name, member string) (string, error) {
	tm, err := a.open(ctx, name)
	if err != nil {
		return "", err
	}
	return tm.ScreenInColour(ctx, member)
}

// FollowScreen calls woke whenever member's pane prints (`teamctl logs -f`,
// woken by the pane's output through a control client, not by polling),
// until ctx ends or the pane's program ends.
func (a Actions) FollowScreen(ctx context.Context, name, member string, woke func()) error {
	tm, err := a.open(ctx, name)
	if err != nil {
		return err
	}
	return tm.Logs(ctx, member, LogsOptions{Follow: true}, func(string) { woke() })
}

// PlanFinish is what Finish would do for member (Team.PlanFinish), read
// without acting: what a front-end shows before it asks to confirm.
func (a Actions) PlanFinish(ctx context.Context, name, member string) (*FinishPlan, error) {
	tm, err := a.open(ctx, name)
	if err != nil {
		return nil, err
	}
	return tm.PlanFinish(ctx, member)
}

// Finish is `teamctl finish --yes MEMBER`: a member that runs is stopped
// first (as teamctl stop does), then its work lands in its recorded base and
// its worktree and the branch teamctl made go (Team.Finish).
func (a Actions) Finish(ctx context.Context, name, member string) (*FinishResult, error) {
	tm, err := a.open(ctx, name)
	if err != nil {
		return nil, err
	}
	running, err := tm.Running(ctx, []string{member}, false)
	if err != nil {
		return nil, err
	}
	for _, m := range running {
		if _, err := tm.Stop(ctx, m, FinishStopGrace); err != nil {
			return nil, err
		}
	}
	return tm.Finish(ctx, []string{member}, false, MergeOptions{})
}

// FinishStopGrace is how long a member finish stops has to end (the web
// page's finish and `teamctl finish`).
const FinishStopGrace = 10 * time.Second

// FileDiff is the diff of one of member's changed files (Team.FileDiff).
func (a Actions) FileDiff(ctx context.Context, name, member, path string) (string, error) {
	tm, err := a.open(ctx, name)
	if err != nil {
		return "", err
	}
	return tm.FileDiff(ctx, member, path)
}
