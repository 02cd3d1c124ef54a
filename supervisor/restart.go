package supervisor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/relaunch"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor/internal/filewatch"
)

// Restart limits: more than maxExits exits within exitWindow and the member is
// failed; the delay before a restart doubles from minBackoff to maxBackoff.
// SuperviseOptions' MaxExits and MinBackoff change the first and the third.
const (
	maxExits   = 5
	exitWindow = 2 * time.Minute
	minBackoff = time.Second
	maxBackoff = 60 * time.Second
)

// afterExit decides what a member's exit leads to: nothing (policy, or a
// teammate the lead spawned: restarting those is Claude Code's business), a
// restart after a backoff, or `failed` when it keeps exiting.
func (s *daemon) afterExit(w *paneWatch, code *int, sig int, now time.Time) {
	if s.heldMember(w.member) {
		return // held for its budget: nothing restarts it (budget.go)
	}
	m, ok := s.st.Member(w.member)
	if ok && w.reclaiming { // ended by the daemon itself: back at once, no crash
		id := w.id
		w.restartTimer = s.clock.AfterFunc(0, func() { s.restart <- id })
		return
	}
	if !ok || w.origin != state.OriginLayout || !launch.RestartWanted(m.Restart, code, sig) {
		return
	}
	recent := w.exits[:0]
	for _, t := range w.exits {
		if now.Sub(t) < exitWindow {
			recent = append(recent, t)
		}
	}
	w.exits = append(recent, now)
	limit := maxExits
	if s.o.MaxExits > 0 {
		limit = s.o.MaxExits
	}
	if len(w.exits) > limit {
		reason := fmt.Sprintf("exited %d times within %s; not restarting", len(w.exits), exitWindow)
		w.live = &state.LiveMember{Pane: w.id, State: state.StateFailed, Since: now, ExitCode: code, Reason: reason}
		s.live.Members[w.member] = w.live
		s.event(state.Event{Kind: state.EventFailed, Member: w.member, Pane: w.id, ExitCode: code, Restarts: m.Restarts, Detail: reason})
		return
	}
	first := minBackoff
	if s.o.MinBackoff > 0 {
		first = s.o.MinBackoff
	}
	delay := first << (len(w.exits) - 1)
	if delay > maxBackoff {
		delay = maxBackoff
	}
	id := w.id
	w.restartTimer = s.clock.AfterFunc(delay, func() { s.restart <- id })
	s.log.Info("restart scheduled", "member", w.member, "in", delay)
}

// doRestart relaunches a member in its own pane with the launch it was
// started with, as the team's layout plans it (relaunch.Plan); the lead and the
// teammates resume their conversation (--resume) when Claude Code stored it,
// instead of starting a new session under the same id (which Claude Code
// refuses).
func (s *daemon) doRestart(ctx context.Context, pane string) {
	w := s.panes[pane]
	if w == nil || w.live.State != state.StateExited || s.heldMember(w.member) {
		return
	}
	m, ok := s.st.Member(w.member)
	if !ok || s.putOffForTeamLock(w, m) {
		return
	}
	// The team's lock, held to the end: a person's `teamctl restart` or `up`
	// holds it while it ends a member and relaunches it, and must not find
	// this relaunch half done, nor this one relaunch a member it relaunched.
	// Tried once (a context already done): the loop must not wait on it.
	lctx, cancel := context.WithTimeout(ctx, 0)
	unlock, err := state.Lock(lctx, s.team)
	cancel()
	switch {
	case err == nil:
		defer unlock()
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil: // held: try again soon
		id := w.id
		w.restartTimer = s.clock.AfterFunc(250*time.Millisecond, func() { s.restart <- id })
		return
	default: // no lock to be had (a read-only folder…): the restart goes on
		s.log.Warn("restart without the team's lock", "member", m.Name, "err", err)
	}
	if st, err := state.Load(s.team); err == nil {
		s.st = st
		if m, ok = st.Member(w.member); !ok || m.Pane != w.id {
			return // relaunched (or dropped) meanwhile: its new pane is watched as it comes
		}
	}
	// The new pane replaces the dead one, and what it showed goes with it:
	// its last words first.
	switch w.words {
	case wordsKeeping:
		w.restartWaits = true // wordsCaptured restarts it once they are back
		return
	case wordsMissed:
		s.keepWordsNow(ctx, w)
	}
	l, x, err := relaunch.Plan(s.st, m.Name, s.o.ClaudeOverride, s.o.Teamctl)
	if err != nil {
		s.cannotRelaunch(w, err)
		return
	}
	resume := relaunch.Resumes(s.claudeDir, s.team, x)
	if err := relaunch.GivePrompt(ctx, s.claudeDir, s.st, m, x, resume, s.clock.Now()); err != nil {
		s.log.Warn("prompt for a relaunched teammate", "member", m.Name, "err", err)
	}
	// Through the team's server, not the control client: the loop must never
	// wait on its replies.
	np, err := relaunch.InPlace(ctx, s.srv, m, x, resume)
	if err != nil {
		s.event(state.Event{Kind: state.EventFailed, Member: w.member, Pane: w.id, Detail: "restart: " + err.Error()})
		return
	}
	if err := relaunch.Decorate(ctx, s.srv, np.ID, m.Name, l.ColorOf(m.Name)); err != nil {
		s.log.Warn("name the relaunched pane", "member", m.Name, "err", err)
	}
	s.moveWatch(w, np.ID)
	w.reclaiming = false
	pid := np.PID
	restarts, err := s.updateMemberLocked(w.member, func(sm *state.Member) {
		relaunch.Record(sm, x, np, s.clock.Now())
	})
	if err != nil {
		s.log.Error("state", "err", err)
	}
	w.pid = pid
	w.live = &state.LiveMember{Pane: w.id, State: state.StateRunning, Since: s.clock.Now().UTC()}
	s.live.Members[w.member] = w.live
	s.saveLive()
	s.event(state.Event{Kind: state.EventRestart, Member: w.member, Pane: w.id, Restarts: restarts, Detail: fmt.Sprintf("pid %d", pid)})
	s.leadStarted(m)
}

// cannotRelaunch makes a member whose restart cannot be planned failed, with
// why: nothing restarts it until a person does (`teamctl up --recreate`,
// `teamctl restart`).
func (s *daemon) cannotRelaunch(w *paneWatch, why error) {
	reason := "not restarted: " + why.Error()
	now := s.clock.Now().UTC()
	w.live = &state.LiveMember{Pane: w.id, State: state.StateFailed, Since: now, ExitCode: w.live.ExitCode, Reason: reason}
	s.live.Members[w.member] = w.live
	s.saveLive()
	s.event(state.Event{Kind: state.EventFailed, Member: w.member, Pane: w.id, Detail: reason})
}

// putOffForTeamLock puts a Claude Code lead's restart off while Claude Code's
// lock on its team's config is fresh: left by the lead itself when it was
// killed while writing the config, it would make the new lead claim a team
// under another name (claudecode.WaitTeamConfigUnlocked; seen in e2e under
// load, 2.1.328). The restart comes again once the lock is stale for Claude
// Code, or after claudecode.TeamLockPatience anyway. It reports whether it put
// the restart off.
func (s *daemon) putOffForTeamLock(w *paneWatch, m *state.Member) bool {
	if m.Role != state.RoleLead || m.SessionID == "" {
		return false
	}
	cfg, err := claudecode.TeamConfigPath(s.claudeDir, claudecode.LeadTeamName(m.SessionID))
	if err != nil {
		return false
	}
	now := s.clock.Now()
	left := claudecode.TeamLockFresh(cfg, now)
	switch {
	case left == 0:
	case w.lockWaitSince.IsZero():
		w.lockWaitSince = now
		s.log.Info("restart waits for Claude Code's lock on the team's config", "member", m.Name, "lock", cfg+".lock", "for", left)
	case now.Sub(w.lockWaitSince) >= claudecode.TeamLockPatience:
		s.log.Warn("restarting although Claude Code's lock on the team's config is still fresh", "member", m.Name, "lock", cfg+".lock")
		left = 0
	}
	if left == 0 {
		w.lockWaitSince = time.Time{}
		return false
	}
	id := w.id
	wait := min(left, claudecode.TeamLockPatience-now.Sub(w.lockWaitSince))
	w.restartTimer = s.clock.AfterFunc(wait, func() { s.restart <- id })
	return true
}

// leadStarted has the team the lead claims looked at once m, when it is the
// lead, runs again.
func (s *daemon) leadStarted(m *state.Member) {
	if m.Role == state.RoleLead && s.files != nil {
		s.files.Mark(filewatch.Teams)
	}
}

// updateTeam changes state.json under the team's lock and keeps the
// supervisor's copy in step.
func (s *daemon) updateTeam(ctx context.Context, fn func(*state.Team)) error {
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	unlock, err := state.Lock(lctx, s.team)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := state.Load(s.team)
	if err != nil {
		return err
	}
	fn(st)
	st.UpdatedAt = s.clock.Now().UTC()
	if err := state.Save(st); err != nil {
		return err
	}
	s.st = st
	return nil
}

// updateMemberLocked changes one member in state.json, the caller holding the
// team's lock, and keeps the supervisor's copy in step; it returns the
// member's restart count.
func (s *daemon) updateMemberLocked(name string, fn func(*state.Member)) (int, error) {
	st, err := state.Load(s.team)
	if err != nil {
		return 0, err
	}
	m, ok := st.Member(name)
	if !ok {
		return 0, fmt.Errorf("member %s is not in the state", name)
	}
	fn(m)
	st.UpdatedAt = s.clock.Now().UTC()
	if err := state.Save(st); err != nil {
		return 0, err
	}
	s.st = st
	return m.Restarts, nil
}

// moveWatch makes w the watch of the member's new pane id (its relaunch took
// a new pane in the old one's place): the old pane's going is no exit.
func (s *daemon) moveWatch(w *paneWatch, id string) {
	delete(s.panes, w.id)
	w.id = id
	w.exitPID = ""
	s.panes[id] = w
	s.freshRun(w)
}

// freshRun starts the look at a new run in w's pane: what the old run showed
// says nothing of it, and it is looked at once it has been quiet for the
// quiet period, whether or not it writes anything.
func (s *daemon) freshRun(w *paneWatch) {
	w.screen, w.rechecked, w.statusTries = "", false, 0
	w.words, w.restartWaits = wordsNone, false // a capture on its way still keeps the words of the run before
	w.lastOutput = s.clock.Now()
	s.outputOnAgain(w)
	s.arm(w, s.quiet)
}
