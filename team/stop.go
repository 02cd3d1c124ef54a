package team

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/relaunch"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// StoppedReason is the hold of a member a person stopped (status shows it
// held, for this).
const StoppedReason = "stopped by a person (teamctl stop)"

// holdWait is how long Stop waits for the supervisor to hold the member
// before it ends it (it is at once, unless the supervisor is stuck).
var holdWait = 10 * time.Second

// StopResult says how Stop stopped a member.
type StopResult struct {
	Member string `json:"member"`
	// Approved: a Claude Code teammate that ended by itself on Claude Code's
	// shutdown_request, as down asks them.
	Approved bool `json:"approved,omitempty"`
	Killed   bool `json:"killed,omitempty"` // did not end within the grace: SIGKILL
	// WasEnded: its program had ended already; it is held all the same.
	WasEnded bool `json:"was_ended,omitempty"`
}

// Stop stops one member of a running team, as down stops them all: held
// first (so that nothing of the supervisor's restarts it: a stop-requested
// event the supervisor acts on, or, with no supervisor running, the hold
// written into live.json), then a Claude Code teammate is sent Claude
// Code's own shutdown_request and given up to 5 s to end by itself, then its
// pane's process group gets SIGTERM, grace, SIGKILL (internal/proc's one stop
// loop). Its pane stays, dead; status shows it held. Start brings it back.
func (t *Team) Stop(ctx context.Context, member string, grace time.Duration) (*StopResult, error) {
	st, err := loadRunning(t.Name)
	if err != nil {
		return nil, err
	}
	m, err := memberOf(st, member)
	if err != nil {
		return nil, err
	}
	if live, _ := state.ReadLive(t.Name); live != nil {
		if h, held := live.HeldMember(member); held && h.Stopped {
			return nil, fmt.Errorf("%s is stopped already (%s, since %s): teamctl start %s brings it back", member, h.Reason, h.Since.Local().Format("15:04:05"), member)
		}
	}
	if err := t.holdStopped(ctx, member); err != nil {
		return nil, err
	}
	res := &StopResult{Member: member}
	p, alive, err := t.livePane(ctx, m)
	if err != nil {
		return nil, err
	}
	if !alive {
		res.WasEnded = true
		return res, nil
	}
	if !onThisMachine(p.ID) {
		return nil, fmt.Errorf("%s runs on host %s: stopping one member there is not built yet (`teamctl down` ends the team's server there)", member, m.Host)
	}
	g := []proc.Target{proc.Group(p.PID)}
	if m.Role == state.RoleTeammate && t.askToShutDown(ctx, st, m) {
		if t.w.procs.Wait(ctx, g, min(grace/2, 5*time.Second))[g[0]] {
			res.Approved = true
			return res, t.waitPaneDead(ctx, m)
		}
	}
	r := t.w.procs.End(ctx, g, grace)
	res.Killed = len(r.Killed) > 0
	return res, t.waitPaneDead(ctx, m)
}

// waitPaneDead waits, up to 5 s, for tmux to show m's pane dead once its
// process group is gone (tmux learns it from SIGCHLD, a moment later), so
// that what comes next (status, finish) sees it stopped.
func (t *Team) waitPaneDead(ctx context.Context, m *state.Member) error {
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for {
		if _, alive, err := t.livePane(wctx, m); err == nil && !alive {
			return nil
		}
		select {
		case <-wctx.Done():
			return fmt.Errorf("%s's processes are gone, but tmux still shows its pane %s running", m.Name, m.Pane)
		case <-time.After(20 * time.Millisecond): // a look at the pane, until the deadline
		}
	}
}

// memberOf is member name of st, or an error naming the members there are.
func memberOf(st *state.Team, name string) (*state.Member, error) {
	m, ok := st.Member(name)
	if !ok {
		var names []string
		for _, m := range st.Members {
			names = append(names, m.Name)
		}
		return nil, fmt.Errorf("team %s has no member %q (it has %s)", st.Team, name, strings.Join(names, ", "))
	}
	return m, nil
}

// livePane is m's pane, and whether its program runs.
func (t *Team) livePane(ctx context.Context, m *state.Member) (tmux.Pane, bool, error) {
	panes, err := t.srv().ListPanes(ctx)
	if err != nil {
		return tmux.Pane{}, false, fmt.Errorf("the team's panes: %w", err)
	}
	i := slices.IndexFunc(panes, func(p tmux.Pane) bool { return p.ID == m.Pane })
	if i < 0 {
		return tmux.Pane{}, false, nil
	}
	return panes[i], !panes[i].Dead && panes[i].PID > 0, nil
}

// holdStopped holds member so that nothing restarts it: the running
// supervisor is asked (a stop-requested event) and its hold waited for in
// live.json; with none running the hold is written there, as the next one
// will read it.
func (t *Team) holdStopped(ctx context.Context, member string) error {
	ev, err := state.OpenEventLog(t.Name)
	if err != nil {
		return err
	}
	defer ev.Close()
	if pid, _ := state.SupervisorPID(t.Name); pid == 0 {
		unlock, err := state.Lock(ctx, t.Name)
		if err != nil {
			return err
		}
		defer unlock()
		live, err := state.ReadLive(t.Name)
		if err != nil {
			return err
		}
		if live.Budgets == nil {
			live.Budgets = &state.Budgets{}
		}
		if live.Budgets.Held == nil {
			live.Budgets.Held = map[string]state.Hold{}
		}
		live.Budgets.Held[member] = state.Hold{Since: t.w.clock.Now().UTC(), Reason: StoppedReason, Stopped: true}
		if err := state.WriteLive(t.Name, live); err != nil {
			return fmt.Errorf("hold %s: %w", member, err)
		}
		return ev.Append(state.Event{Kind: state.EventHeld, Member: member, Detail: StoppedReason})
	}
	if err := ev.Append(state.Event{Kind: state.EventStopRequested, Member: member, Detail: StoppedReason}); err != nil {
		return fmt.Errorf("stop %s: %w", member, err)
	}
	wctx, cancel := context.WithTimeout(ctx, holdWait)
	defer cancel()
	for {
		if live, err := state.ReadLive(t.Name); err == nil {
			if h, held := live.HeldMember(member); held && h.Stopped {
				return nil
			}
		}
		select {
		case <-wctx.Done():
			return fmt.Errorf("the team's supervisor did not hold %s within %s, so it could restart it: not stopped (is it stuck? teamctl status says whether it runs)", member, holdWait)
		case <-time.After(20 * time.Millisecond): // a look at live.json, until the deadline
		}
	}
}

// askToShutDown sends teammate m Claude Code's own shutdown_request, as down
// does; it reports whether the request went.
func (t *Team) askToShutDown(ctx context.Context, st *state.Team, m *state.Member) bool {
	claudeDir := relaunch.ClaudeConfigDir(st)
	inbox, err := claudecode.InboxPath(claudeDir, st.ClaudeTeam, m.Name)
	if err != nil {
		return false
	}
	mctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return claudecode.AppendMessage(mctx, inbox, claudecode.ShutdownRequestMessage(claudecode.NewSessionID(), "teamctl stop: a person stops this teammate", t.w.clock.Now())) == nil
}

// Start brings back a member Stop stopped: its hold released (a released
// event, as resume-member records), on which the supervisor starts it
// again, its conversation resumed; with no supervisor running, it is
// relaunched here (as restart does). It returns the pid of its new run.
func (t *Team) Start(ctx context.Context, member string) (int, error) {
	st, err := loadRunning(t.Name)
	if err != nil {
		return 0, err
	}
	m, err := memberOf(st, member)
	if err != nil {
		return 0, err
	}
	live, _ := state.ReadLive(t.Name)
	if h, held := live.HeldMember(member); !held || !h.Stopped {
		if _, alive, err := t.livePane(ctx, m); err == nil && alive {
			return 0, fmt.Errorf("%s is running: start brings back a member teamctl stop stopped", member)
		}
		return 0, fmt.Errorf("%s is not stopped by teamctl stop: teamctl restart %s relaunches it", member, member)
	}
	if m.Origin == state.OriginLead {
		// Not teamctl's to start: the lead spawns its own teammates.
		if _, err := t.Release(ctx, member); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("%s was spawned by the lead, which starts its own teammates: its hold is let go, and the lead may spawn it again", member)
	}
	if pid, _ := state.SupervisorPID(t.Name); pid == 0 {
		if _, err := t.Release(ctx, member); err != nil {
			return 0, err
		}
		return t.Restart(ctx, member)
	}
	// The supervisor starts it again on the release once it has seen it end:
	// released before (a start right after its stop), its exit would be one
	// to restart by its policy, or none.
	if err := t.waitEnded(ctx, member); err != nil {
		return 0, err
	}
	if _, err := t.Release(ctx, member); err != nil {
		return 0, err
	}
	// The supervisor relaunches it: its new run is on record when it has.
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		if st, err := state.Load(t.Name); err == nil {
			if now, ok := st.Member(member); ok && (now.Pane != m.Pane || now.PID != m.PID) {
				if _, alive, err := t.livePane(ctx, now); err == nil && alive {
					return now.PID, nil
				}
			}
		}
		select {
		case <-wctx.Done():
			return 0, fmt.Errorf("released %s, but the supervisor has not started it again within 30s: teamctl status says how it is (teamctl restart %s relaunches it)", member, member)
		case <-time.After(50 * time.Millisecond): // a look at state.json, until the deadline
		}
	}
}

// waitEnded waits, up to 10 s, for the supervisor to have seen member's run
// end (live.json).
func (t *Team) waitEnded(ctx context.Context, member string) error {
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		if live, err := state.ReadLive(t.Name); err == nil {
			if lm := live.Members[member]; lm != nil && lm.State.Ended() {
				return nil
			}
		}
		select {
		case <-wctx.Done():
			return fmt.Errorf("the team's supervisor has not seen %s end yet: try again in a moment (teamctl status says how it is)", member)
		case <-time.After(20 * time.Millisecond): // a look at live.json, until the deadline
		}
	}
}

// Running are those of members (every member with a worktree, with all)
// whose program runs: what finish must stop before it removes their
// worktrees (teamctl finish asks to).
func (t *Team) Running(ctx context.Context, members []string, all bool) ([]string, error) {
	st, err := state.Load(t.Name)
	if err != nil {
		return nil, err
	}
	if !st.Running() {
		return nil, nil
	}
	if all {
		members = nil
		for _, wt := range st.Worktrees {
			members = append(members, wt.Member)
		}
	}
	var out []string
	for _, name := range members {
		var re *RunningError
		if err := t.checkDown(ctx, st, name); errors.As(err, &re) {
			out = append(out, name)
		} else if err != nil {
			return nil, err
		}
	}
	return out, nil
}
