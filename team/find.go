package team

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// ErrNoTeamUp is FindTeam's error when no team is up (and none was named):
// `down` takes it as nothing to do.
var ErrNoTeamUp = errors.New("no team is up")

// Find decides which team a command after `up` is about: the --team flag,
// else TEAMCTL_TEAM, else the only team that is up. Otherwise it says which
// teams there are.
func Find(ctx context.Context, flag, tmuxBin string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if env := os.Getenv("TEAMCTL_TEAM"); env != "" {
		return env, nil
	}
	names, err := state.List()
	if err != nil {
		return "", err
	}
	var live []string
	for _, n := range names {
		st, err := state.Load(n)
		if err != nil || !st.Running() {
			continue
		}
		srv := &tmux.Server{Socket: state.SocketName(n), Bin: tmuxBin}
		if ok, _ := teamUp(ctx, srv, st); ok {
			live = append(live, n)
		}
	}
	switch len(live) {
	case 1:
		return live[0], nil
	case 0:
		if len(names) == 0 {
			return "", fmt.Errorf("%w: start one with `teamctl up LAYOUT`", ErrNoTeamUp)
		}
		return "", fmt.Errorf("%w (teams with state: %s); start one with `teamctl up LAYOUT` or name one with --team", ErrNoTeamUp, strings.Join(names, ", "))
	default:
		return "", fmt.Errorf("%d teams are up (%s): name one with --team or TEAMCTL_TEAM", len(live), strings.Join(live, ", "))
	}
}

// TeamSummary is one line of `teamctl teams`.
type TeamSummary struct {
	Team    string `json:"team"`
	Up      bool   `json:"up"`
	Members int    `json:"members"`
	Running int    `json:"running"`
	Layout  string `json:"layout"`
	Socket  string `json:"socket"`
	// Supervisor says whether the team's supervisor runs: a team up without
	// one is watched, restarted and brokered by nobody.
	Supervisor SupervisorStatus `json:"supervisor"`
	// Error says why the team could not be looked at (a corrupt state.json,
	// say); the other fields are then empty.
	Error string `json:"error,omitempty"`
}

// List summarises every team with state. A team that cannot be looked
// at is listed with its error rather than hiding the others.
func List(ctx context.Context, tmuxBin string) ([]TeamSummary, error) {
	names, err := state.List()
	if err != nil {
		return nil, err
	}
	out := []TeamSummary{}
	for _, n := range names {
		s, err := getStatus(ctx, n, tmuxBin)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			out = append(out, TeamSummary{Team: n, Error: err.Error()})
			continue
		}
		ts := TeamSummary{Team: n, Members: len(s.Members), Socket: s.Socket, Layout: s.Layout, Supervisor: s.Supervisor}
		for _, m := range s.Members {
			if m.State != state.StateExited && m.State != state.StateFailed {
				ts.Running++
			}
		}
		ts.Up = s.StoppedAt == nil && ts.Running > 0
		out = append(out, ts)
	}
	return out, nil
}

// loadRunning loads a team's state and refuses a team that is down.
func loadRunning(team string) (*state.Team, error) {
	st, err := state.Load(team)
	if err != nil {
		return nil, err
	}
	if !st.Running() {
		return nil, fmt.Errorf("team %s is down: `teamctl up %s` first", team, st.LayoutPath)
	}
	return st, nil
}
