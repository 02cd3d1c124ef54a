package supervisor

import (
	"context"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// States of a member.
const (
	StateRunning = "running"
	StateExited  = "exited"
)

// Status is what `teamctl status --json` prints. Later versions add fields; they
// never rename these.
type Status struct {
	Team      string         `json:"team"`
	Socket    string         `json:"socket"`
	Session   string         `json:"session"`
	StoppedAt *time.Time     `json:"stopped_at,omitempty"`
	Members   []MemberStatus `json:"members"`
}

// MemberStatus is one member in Status.
type MemberStatus struct {
	Name      string    `json:"name"`
	Role      string    `json:"role"`
	Pane      string    `json:"pane"`
	PID       int       `json:"pid"`
	State     string    `json:"state"`
	ExitCode  *int      `json:"exit_code"`
	Cwd       string    `json:"cwd"`
	SessionID string    `json:"session_id"`
	Restarts  int       `json:"restarts"`
	StartedAt time.Time `json:"started_at"`
}

// GetStatus reads the team's state and asks its tmux server, once, how every
// pane is.
func GetStatus(ctx context.Context, team, tmuxBin string) (*Status, error) {
	st, err := state.Load(team)
	if err != nil {
		return nil, err
	}
	srv := &tmux.Server{Socket: st.Socket, Bin: tmuxBin}
	byID := map[string]tmux.Pane{}
	if st.Running() {
		panes, err := srv.ListPanes(ctx)
		if err != nil && !isNoServer(err) {
			return nil, err
		}
		for _, p := range panes {
			byID[p.ID] = p
		}
	}
	return statusOf(st, byID), nil
}

// Status is the team as Up left it, without asking tmux again: every member in
// its state was just started, relaunched or seen running.
func (r *Result) Status() *Status {
	byID := map[string]tmux.Pane{}
	for _, m := range r.Team.Members {
		byID[m.Pane] = tmux.Pane{ID: m.Pane, PID: m.PID}
	}
	return statusOf(r.Team, byID)
}

// statusOf combines the state with what tmux says of each pane.
func statusOf(st *state.Team, byID map[string]tmux.Pane) *Status {
	s := &Status{Team: st.Team, Socket: st.Socket, Session: st.Session, StoppedAt: st.StoppedAt, Members: []MemberStatus{}}
	for _, m := range st.Members {
		ms := MemberStatus{
			Name: m.Name, Role: m.Role, Pane: m.Pane, PID: m.PID, State: StateExited,
			Cwd: m.Cwd, SessionID: m.SessionID, Restarts: m.Restarts, StartedAt: m.StartedAt,
		}
		if p, ok := byID[m.Pane]; ok {
			if p.Dead {
				ms.ExitCode = p.DeadStatus
			} else {
				ms.State = StateRunning
				ms.PID = p.PID
			}
		}
		s.Members = append(s.Members, ms)
	}
	return s
}
