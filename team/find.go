package team

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/teamctl/teamctl/state"
)

// ErrNoTeamUp is FindTeam's error when no team is up (and none was named):
// `down` takes it as nothing to do.
var ErrNoTeamUp = errors.New("no team is up")

// Find decides which team a command after `up` is about: the --team flag,
// else as which.go says. Otherwise it says which teams there are.
func Find(ctx context.Context, flag, tmuxBin string) (string, error) {
	return FindFor(ctx, flag, tmuxBin, "")
}

// FindFor is Find for a command about one member: with several teams up and
// none named or found where the command runs, the one team that has a
// member of that name is the one.
func FindFor(ctx context.Context, flag, tmuxBin, member string) (string, error) {
	f, err := Which(ctx, flag, tmuxBin, member)
	return f.Name, err
}

// Which is FindFor saying how it found the team (Found.Note), for a
// command to say so.
func Which(ctx context.Context, flag, tmuxBin, member string) (Found, error) {
	return which(ctx, realWorld(tmuxBin), hereNow(), flag, member)
}

func findFor(ctx context.Context, w world, flag, member string) (string, error) {
	f, err := which(ctx, w, hereNow(), flag, member)
	return f.Name, err
}

// which gathers the teams with state, and whether each is up, for resolve.
func which(ctx context.Context, w world, h here, flag, member string) (Found, error) {
	if flag != "" {
		return Found{Name: flag}, nil
	}
	if env := h.getenv("TEAMCTL_TEAM"); env != "" {
		return Found{Name: env}, nil
	}
	names, err := state.List()
	if err != nil {
		return Found{}, err
	}
	var teams []candidate
	for _, n := range names {
		st, err := state.Load(n)
		if err != nil {
			// Still a team there is, which opening it will say what is wrong with.
			teams = append(teams, candidate{name: n})
			continue
		}
		up := false
		if st.Running() {
			up, _ = teamUp(ctx, w.tmux(n), st)
		}
		teams = append(teams, candidateOf(st, up))
	}
	return resolve(flag, member, h, teams)
}

// UpTeams returns the teams teamctl has state for, and of those the ones
// that are up (state says so and their tmux server runs them).
func UpTeams(ctx context.Context, tmuxBin string) (names, up []string, err error) {
	return upTeams(ctx, realWorld(tmuxBin))
}

func upTeams(ctx context.Context, w world) (names, up []string, err error) {
	names, err = state.List()
	if err != nil {
		return nil, nil, err
	}
	for _, n := range names {
		st, err := state.Load(n)
		if err != nil || !st.Running() {
			continue
		}
		if ok, _ := teamUp(ctx, w.tmux(n), st); ok {
			up = append(up, n)
		}
	}
	return names, up, nil
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
	// Lost: not brought down, but its server is gone; `teamctl up --all`
	// brings it back. LastSeen is when it was last seen alive.
	Lost     bool       `json:"lost,omitempty"`
	LastSeen *time.Time `json:"last_seen,omitempty"`
	// LayoutProblem: a lost team's layout file is not the one it was
	// brought up from (Status.LayoutProblem); up --all passes it by.
	LayoutProblem string `json:"layout_problem,omitempty"`
	// Error says why the team could not be looked at (a corrupt state.json,
	// say); the other fields are then empty.
	Error string `json:"error,omitempty"`
	// Usage is what the team spent, as its running supervisor last read
	// its members' transcripts; nil for a team without one (down, say:
	// `teamctl usage --team T` reads it from the transcripts, which `teams`
	// does not do for every team each time it is run).
	Usage *state.MemberUsage `json:"usage,omitempty"`
}

// List summarises every team with state. A team that cannot be looked
// at is listed with its error rather than hiding the others.
func List(ctx context.Context, tmuxBin string) ([]TeamSummary, error) {
	return list(ctx, realWorld(tmuxBin))
}

func list(ctx context.Context, w world) ([]TeamSummary, error) {
	names, err := state.List()
	if err != nil {
		return nil, err
	}
	out := []TeamSummary{}
	for _, n := range names {
		s, err := getStatus(ctx, w, n)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			out = append(out, TeamSummary{Team: n, Error: err.Error()})
			continue
		}
		ts := TeamSummary{Team: n, Members: len(s.Members), Socket: s.Socket, Layout: s.Layout, Supervisor: s.Supervisor, Lost: s.Lost, LastSeen: s.LastSeen, LayoutProblem: s.LayoutProblem, Usage: s.Usage}
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
