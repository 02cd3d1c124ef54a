package team

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// LastLinesShown is how many of an ended member's last lines Status has.
const LastLinesShown = 10

// getStatus is the one place a member's state is decided, for every view
// (status and its watch, up's closing table, teams, completion): the team's
// state.json, what its tmux server says of each pane (asked once; tmux is the
// judge of running versus exited), and, while a supervisor runs, what it
// knows (live.json: idle, stalled, waiting-approval, failed).
func getStatus(ctx context.Context, w world, team string) (*Status, error) {
	st, err := state.Load(team)
	if err != nil {
		return nil, err
	}
	srv := w.tmux(team)
	byID := map[string]tmux.Pane{}
	gone := false
	var unreachable map[string]time.Time
	if st.Running() {
		var panes []tmux.Pane
		if g, ok := srv.(*tmux.Group); ok {
			panes, unreachable, err = listHosts(ctx, g, w.clock.Now())
		} else {
			panes, err = srv.ListPanes(ctx)
		}
		if err != nil && !isNoServer(err) {
			return nil, err
		}
		for _, p := range panes {
			byID[p.ID] = p
		}
		_, held := tmux.TeamPane(panes, st.PanesLeadFirst())
		gone = !held
		if gone {
			// state.json was read before tmux was asked: a down in between
			// recorded its stop, then killed the server. Read it again, so
			// that a team brought down is never shown lost.
			if again, err := state.Load(team); err == nil && !again.Running() {
				st, gone = again, false
			}
		}
	}
	s := statusOf(st, byID)
	if gone {
		s.Lost = true
		seen := st.UpdatedAt
		if live, err := state.ReadLive(team); err == nil && live.Seen.After(seen) {
			seen = live.Seen
		}
		if !seen.IsZero() {
			s.LastSeen = &seen
		}
		s.LayoutProblem = LayoutProblem(st)
	}
	if pid, _ := state.SupervisorPID(team); pid != 0 && st.Running() {
		s.Supervisor = SupervisorStatus{Running: true, PID: max(pid, 0)}
		if live, err := state.ReadLive(team); err == nil {
			applyLive(s, live)
			for h, since := range live.Unreachable {
				if _, ok := unreachable[h]; !ok {
					if unreachable == nil {
						unreachable = map[string]time.Time{}
					}
					unreachable[h] = since
				}
			}
		}
	}
	applyUnreachable(s, unreachable)
	addLastLines(ctx, srv, s, byID)
	return s, nil
}

// addLastLines gives each ended member the last lines its pane showed: its
// last words as the supervisor kept them, or, when it kept none of that run
// (none runs, or not yet), as its dead pane still shows them.
func addLastLines(ctx context.Context, srv tmuxServer, s *Status, byID map[string]tmux.Pane) {
	for i := range s.Members {
		m := &s.Members[i]
		if !m.State.Ended() {
			continue
		}
		if lw, _ := state.ReadLastWords(s.Team, m.Name); lw.Of(m.Pane, m.PID) {
			m.LastLines = lw.Tail(LastLinesShown)
			continue
		}
		if p, ok := byID[m.Pane]; ok && p.Dead {
			if lines, err := srv.CaptureHistory(ctx, p.ID, LastLinesShown); err == nil {
				lines = tmux.WithoutDeadNotice(lines)
				m.LastLines = lines[max(0, len(lines)-LastLinesShown):]
			}
		}
	}
}

// applyLive adds what the running supervisor knows: idle, stalled, failed,
// held; what each member spent. tmux stays the judge of running versus
// exited, except for a member held for its budget, which is held whatever
// its pane shows (stopped, it is exited too).
func applyLive(s *Status, live *state.Live) {
	defer applyUsage(s, live)
	for i := range s.Members {
		m := &s.Members[i]
		for _, c := range live.Conflicts {
			for j, other := range c.Members {
				if c.Members[1-j] == m.Name && (!c.Base || j == 1) {
					m.Conflicts = append(m.Conflicts, MemberConflict{With: other, Files: c.Files, Base: c.Base})
				}
			}
		}
		lm := live.Members[m.Name]
		if lm == nil || lm.Pane != m.Pane || (lm.PID != 0 && m.PID != 0 && lm.PID != m.PID) {
			continue // about another pane, or a process since relaunched
		}
		if m.ExitCode == nil && m.State != state.StateRunning {
			m.ExitCode = lm.ExitCode // tmux did not learn it; the supervisor did (the zombie's status)
		}
		switch {
		case lm.State == state.StateFailed && m.State != state.StateRunning: // tmux first: a running pane is not failed
			m.State, m.Reason, m.Since = state.StateFailed, lm.Reason, lm.Since
		case m.State != state.StateRunning:
		case lm.State == state.StateWaitingApproval:
			m.State, m.Since, m.Request = state.StateWaitingApproval, lm.Since, lm.Request
		case lm.State == state.StateStalled:
			m.State, m.Since = state.StateStalled, lm.Since
			m.Stall = &Stall{Pattern: lm.Pattern, Line: lm.Line, Since: lm.Since, Excerpt: lm.Excerpt}
		case lm.State == state.StateIdle:
			m.State, m.Since, m.Result = state.StateIdle, lm.Since, lm.Result
		case lm.State == state.StateLimited:
			m.State, m.Since = state.StateLimited, lm.Since
			m.Limit = &Limit{Line: lm.Line, Since: lm.Since, Reset: lm.Reset, ResetShown: lm.ResetShown}
		case lm.State == state.StateRunning:
			m.Since = lm.Since
		}
	}
}

// applyUsage adds what the members spent, and the holds of their budgets.
func applyUsage(s *Status, live *state.Live) {
	if len(live.Usage) > 0 {
		s.Usage = &state.MemberUsage{}
		for _, name := range slices.Sorted(maps.Keys(live.Usage)) {
			s.Usage.Add(live.Usage[name])
		}
	}
	for i := range s.Members {
		m := &s.Members[i]
		m.Usage = live.Usage[m.Name]
		if h, ok := live.HeldMember(m.Name); ok {
			m.State, m.Reason, m.Since = state.StateHeld, h.Reason, h.Since
		}
	}
}

// statusOf combines the state with what tmux says of each pane.
func statusOf(st *state.Team, byID map[string]tmux.Pane) *Status {
	s := &Status{Team: st.Team, Socket: st.Socket, Session: st.Session, Layout: st.LayoutPath, StoppedAt: st.StoppedAt, Members: []MemberStatus{}}
	for _, m := range st.Members {
		ms := MemberStatus{
			Name: m.Name, Role: m.Role, Pane: m.Pane, PID: m.PID, State: state.StateExited,
			Cwd: m.Cwd, SessionID: m.SessionID, Restarts: m.Restarts, StartedAt: m.StartedAt, Origin: m.Origin, Agent: m.Agent, Host: m.Host,
		}
		if ms.Origin == "" {
			ms.Origin = state.OriginLayout
		}
		if p, ok := byID[m.Pane]; ok {
			if p.PID > 0 {
				ms.PID = p.PID
			}
			if p.Dead {
				ms.ExitCode = p.DeadStatus
			} else {
				ms.State = state.StateRunning
			}
		}
		s.Members = append(s.Members, ms)
	}
	return s
}

// listHosts lists the panes of the team's servers: the hosts not reached
// are in unreachable (since now), their members unknown, never exited; a
// host reached with no server left has no panes (its members exited).
func listHosts(ctx context.Context, g *tmux.Group, now time.Time) (panes []tmux.Pane, unreachable map[string]time.Time, err error) {
	panes, errs, err := g.ListPanesHosts(ctx)
	now = now.UTC()
	for h, herr := range errs {
		if errors.Is(herr, tmux.ErrNoServer) {
			continue
		}
		if unreachable == nil {
			unreachable = map[string]time.Time{}
		}
		unreachable[h] = now
	}
	if err != nil && isNoServer(err) && len(panes) > 0 {
		err = nil // the members here are gone, those on other hosts run on
	}
	return panes, unreachable, err
}

// applyUnreachable shows the members on the hosts in unreachable unknown.
func applyUnreachable(s *Status, unreachable map[string]time.Time) {
	if len(unreachable) == 0 {
		return
	}
	s.Unreachable = slices.Sorted(maps.Keys(unreachable))
	for i := range s.Members {
		m := &s.Members[i]
		if since, ok := unreachable[m.Host]; ok && m.Host != "" {
			m.State, m.Since, m.Stall, m.Limit, m.ExitCode = state.StateUnknown, since, nil, nil, nil
		}
	}
}
