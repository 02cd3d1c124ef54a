package team

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
)

// BringUpOptions tune BringUp: Up's options, and what follows Up.
type BringUpOptions struct {
	UpOptions // Teamctl is BringUp's own: this teamctl (selfexe.Path)
	// Foreground leaves the supervisor to the caller, which runs it in its
	// own terminal (teamctl up --foreground); else BringUp starts it.
	Foreground bool
	// Status asks for the team's status once it is up, to be shown.
	Status bool
}

// BroughtUp says what BringUp did: as far as it got when it failed.
type BroughtUp struct {
	*UpResult
	SupervisorPID     int  // the team's supervisor (0: none started or found)
	SupervisorStarted bool // started now, not found running
	Status            *Status
}

// BringUp is `teamctl up` of layout l: Up, with this teamctl for Claude
// Code's hooks, then the team's supervisor started from it unless one runs
// (or o.Foreground), then, if asked, the team's status.
func BringUp(ctx context.Context, l *layouts.Layout, o BringUpOptions) (*BroughtUp, error) {
	return bringUp(ctx, realWorld(o.TmuxBin), l, o)
}

func bringUp(ctx context.Context, w world, l *layouts.Layout, o BringUpOptions) (*BroughtUp, error) {
	// The hooks and the supervisor outlive this process: never a go run binary.
	self, err := w.teamctl()
	if err != nil {
		return nil, fmt.Errorf("up %s: %w", l.Team, err)
	}
	o.Teamctl = self
	// The team's lock is held until its supervisor runs: a clean or down
	// waiting for it then finds the team up, supervisor and all, never a
	// team half made or a supervisor started for a team that is gone.
	progs, err := checkUp(ctx, l, &o.UpOptions, w)
	if err != nil {
		return nil, fmt.Errorf("up %s: %w", l.Team, err)
	}
	unlock, err := state.Lock(ctx, l.Team)
	o.Trace.Step("the team's lock")
	if err != nil {
		return nil, fmt.Errorf("up %s: %w", l.Team, err)
	}
	defer func() { unlock() }()
	// The supervisor is started first, to start beside tmux's work, and
	// holds the team's supervisor lock from now on: it supervises once told
	// the team is made (state.Handover), and goes when it is not.
	var pending *pendingSupervisor
	if !o.Foreground && w.spawnSupervisor != nil {
		if pending, err = w.spawnSupervisor(self, l.Team); err != nil {
			return nil, fmt.Errorf("up %s: %w", l.Team, err)
		}
		defer pending.abandon()
		o.Trace.Step("the supervisor started, to wait for the team")
	}
	res, err := lockedUp(ctx, l, o.UpOptions, w, progs)
	if err != nil {
		return nil, fmt.Errorf("up %s: %w", l.Team, err)
	}
	b := &BroughtUp{UpResult: res}
	t, err := open(l.Team, w)
	if err != nil {
		return b, err
	}
	t.tmuxBin = o.TmuxBin
	switch {
	case o.Foreground:
	case pending != nil:
		pid, err := pending.begin()
		if err != nil {
			return b, err
		}
		b.SupervisorPID, b.SupervisorStarted = pid, true
		o.Trace.Step("the supervisor ready and told to go")
	default:
		pid, started, err := t.StartSupervisor(self)
		if err != nil {
			return b, err
		}
		b.SupervisorPID, b.SupervisorStarted = pid, started
		o.Trace.Step("the supervisor started and holds its lock")
	}
	unlock()
	unlock = func() {}
	if o.Status {
		b.Status, err = t.Status(ctx)
		o.Trace.Step("status read for the closing table")
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

// LostTeam is one lost team as UpAll brought it back, or did not.
type LostTeam struct {
	Name       string
	LayoutPath string          // its layout file, as state.json names it
	Layout     *layouts.Layout // as it was at up; nil when it is not taken again
	Up         *BroughtUp      // what BringUp did, as far as it got
	Err        error           // why it is not back
}

// UpAllOptions tune UpAll: every lost team is brought up with BringUpOptions.
type UpAllOptions struct {
	BringUpOptions
	// Begin is told of each lost team before it is brought back.
	Begin func(t TeamSummary)
	// Done is told of each after, with how it went; what it returns is the
	// team's error (Err, or the caller's own work after, such as supervising
	// it in the foreground), which counts it as not brought back. Nil: Err.
	Done func(ctx context.Context, t LostTeam) error
}

// UpAllResult says which teams UpAll found lost and which of them it could
// not bring back.
type UpAllResult struct {
	Lost, Failed []string
}

// UpAll brings back every lost team (state says up, its server is gone),
// each from the layout file it was brought up from: one command after a
// reboot. One that fails does not keep the others from coming back; the
// error then names them all.
func UpAll(ctx context.Context, o UpAllOptions) (*UpAllResult, error) {
	return upAll(ctx, realWorld(o.TmuxBin), o)
}

func upAll(ctx context.Context, w world, o UpAllOptions) (*UpAllResult, error) {
	ts, err := list(ctx, w)
	if err != nil {
		return nil, err
	}
	res := &UpAllResult{}
	for _, t := range ts {
		if !t.Lost {
			continue
		}
		res.Lost = append(res.Lost, t.Team)
		if o.Begin != nil {
			o.Begin(t)
		}
		lt := LostTeam{Name: t.Team, LayoutPath: t.Layout}
		// Only the file the person named at up, as it was then: a layout
		// changed since, or open to others, waits for them to name it.
		lt.Layout, lt.Err = ResumeLayout(t.Team)
		if errors.Is(lt.Err, ErrLayoutNotTrusted) {
			lt.Err = fmt.Errorf("%w; look at it, then `teamctl up %s` brings the team back", lt.Err, t.Layout)
		}
		if lt.Err == nil {
			lt.Up, lt.Err = bringUp(ctx, w, lt.Layout, o.BringUpOptions)
		}
		err := lt.Err
		if o.Done != nil {
			err = o.Done(ctx, lt)
		}
		if err != nil {
			res.Failed = append(res.Failed, t.Team)
		}
	}
	if len(res.Failed) > 0 {
		return res, fmt.Errorf("%d of %d lost teams could not be brought back: %s", len(res.Failed), len(res.Lost), strings.Join(res.Failed, ", "))
	}
	return res, nil
}
