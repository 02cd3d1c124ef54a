package supervisor

import (
	"context"
	"errors"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// teamPane finds, among the server's panes, one that is the team's: the lead's
// pane, else any member's (by pane id from state), else any pane teamctl
// marked as a member (@teamctl-member). Sessions are never matched by name: a
// person may rename the team's session, and it is still the team's.
func teamPane(st *state.Team, panes []tmux.Pane) (tmux.Pane, bool) {
	byID := map[string]tmux.Pane{}
	for _, p := range panes {
		byID[p.ID] = p
	}
	if st != nil {
		for _, role := range []string{state.RoleLead, ""} {
			for _, m := range st.Members {
				if role != "" && m.Role != role {
					continue
				}
				if p, ok := byID[m.Pane]; ok {
					return p, true
				}
			}
		}
	}
	for _, p := range panes {
		if p.Member != "" {
			return p, true
		}
	}
	return tmux.Pane{}, false
}

// teamSession is the team's session: that of one of its panes, by id; when
// none of its panes is left, the session of its recorded name, else the
// server's first. ok is false when the server has no session at all.
func teamSession(st *state.Team, panes []tmux.Pane) (id, name string, ok bool) {
	if p, ok := teamPane(st, panes); ok && p.SessionID != "" {
		return p.SessionID, p.Session, true
	}
	for _, p := range panes {
		if p.Session == st.Session && p.SessionID != "" {
			return p.SessionID, p.Session, true
		}
	}
	if len(panes) > 0 && panes[0].SessionID != "" {
		return panes[0].SessionID, panes[0].Session, true
	}
	return "", "", false
}

// sessionTarget is the exact target of the team's session (see teamSession);
// its recorded name when the server has none.
func sessionTarget(st *state.Team, panes []tmux.Pane) string {
	if id, _, ok := teamSession(st, panes); ok {
		return id
	}
	return tmux.SessionTarget(st.Session)
}

// teamUp reports whether the team's server runs and holds at least one of its
// panes (by pane id or teamctl's mark, never by session name).
func teamUp(ctx context.Context, srv *tmux.Server, st *state.Team) (bool, error) {
	panes, err := srv.ListPanes(ctx)
	if errors.Is(err, tmux.ErrNoServer) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, ok := teamPane(st, panes)
	return ok, nil
}
