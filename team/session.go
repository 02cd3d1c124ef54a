package team

import (
	"context"
	"errors"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// teamSession is the team's session on its server, found through its panes.
func teamSession(st *state.Team, panes []tmux.Pane) (id, name string, ok bool) {
	return tmux.TeamSession(panes, st.PanesLeadFirst(), st.Session)
}

// sessionTarget is the exact target of the team's session.
func sessionTarget(st *state.Team, panes []tmux.Pane) string {
	return tmux.TeamSessionTarget(panes, st.PanesLeadFirst(), st.Session)
}

// teamUp reports whether the team's server runs and holds at least one of its
// panes (by pane id or teamctl's mark, never by session name).
func teamUp(ctx context.Context, srv tmuxServer, st *state.Team) (bool, error) {
	panes, err := srv.ListPanes(ctx)
	if errors.Is(err, tmux.ErrNoServer) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, ok := tmux.TeamPane(panes, st.PanesLeadFirst())
	return ok, nil
}
