// Package team holds a team's lifecycle, the verbs a person runs: Up (plan,
// worktrees, panes on the team's private tmux server, state), BringUp and
// UpAll (`teamctl up` and `up --all`: Up, then the team's supervisor),
// Validate (the checks Up makes), Find and FindOrAll (which team a command
// is about), and, on a team opened by name (Open), Status, Down, Attach,
// Answer, Approve/Deny, Send, Inbox, Tasks, Restart, Logs, Diff and
// Conflicts (what the members changed and what merging it would do), Merge
// and Finish (land it, then remove a member's worktree and branch), and
// starting or stopping its supervisor; it also records the Claude Code hooks
// run in a member's pane (RecordHook). It meets the supervising daemon
// (package supervisor) only through the team's state folder (package state)
// and its tmux server: neither imports the other, so the team outlives its
// supervisor and either can be replaced.
package team

import (
	"context"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/relaunch"
	"github.com/teamctl/teamctl/state"
)

// Team is one team, opened by name: its state folder and its tmux server.
type Team struct {
	Name    string
	tmuxBin string
	w       world // tmux, the clock, signals (realWorld, or a test's fakes)
	by      actor // who acts through its verbs (ActingAs)
}

// Open opens the team called name, which must have state (state.ErrNotFound
// otherwise). tmuxBin is the tmux program ("" for tmux from PATH).
func Open(ctx context.Context, name, tmuxBin string) (*Team, error) {
	t, err := open(name, realWorld(tmuxBin))
	if t != nil {
		t.tmuxBin = tmuxBin
	}
	return t, err
}

// open opens the team called name in world w.
func open(name string, w world) (*Team, error) {
	if _, err := state.Dir(name); err != nil {
		return nil, err // an invalid name says so
	}
	if _, err := state.Load(name); err != nil {
		return nil, err
	}
	return &Team{Name: name, w: w}, nil
}

// State is the team's state as it is now on disk.
func (t *Team) State() (*state.Team, error) { return state.Load(t.Name) }

// srv is the team's tmux server in the team's world.
func (t *Team) srv() tmuxServer { return t.w.tmux(t.Name) }

// Status is every member's state: the one place it is decided (see getStatus).
func (t *Team) Status(ctx context.Context) (*Status, error) {
	return getStatus(ctx, t.w, t.Name)
}

// Down stops the team (see down).
func (t *Team) Down(ctx context.Context, o DownOptions) (*DownResult, error) {
	o.TmuxBin = t.tmuxBin
	return down(ctx, t.w, t.Name, o)
}

// Attach selects member's pane for attaching (see prepareAttach).
func (t *Team) Attach(ctx context.Context, member string) (*Attachment, error) {
	return t.prepareAttach(ctx, member)
}

// Answer answers a stalled member — a Claude Code dialog by choosing one of
// its options — and records it (see answer).
func (t *Team) Answer(ctx context.Context, member string, a Answer) (*Answered, error) {
	return t.answer(ctx, member, a)
}

// Approve lets a teammate run the tool it asked about; requestID "" is its
// pending request. It returns the request answered.
func (t *Team) Approve(ctx context.Context, member, requestID string) (string, error) {
	return answerPermission(ctx, t.Name, member, requestID, true, "", t.by)
}

// Deny refuses a teammate's permission request, with reason ("" for the
// default one).
func (t *Team) Deny(ctx context.Context, member, requestID, reason string) (string, error) {
	return answerPermission(ctx, t.Name, member, requestID, false, reason, t.by)
}

// Send gives text to a member and says how it went (see send).
func (t *Team) Send(ctx context.Context, member, text string) (string, error) {
	return t.send(ctx, member, text)
}

// Inbox is a member's Claude Code mailbox (the lead's: the one teammates
// write to).
func (t *Team) Inbox(member string) ([]claudecode.Message, error) { return inbox(t.Name, member) }

// Tasks are the team's Claude Code tasks, by id, and the task files left
// out unread (too large, a symlink: see claudecode.ReadTasks).
func (t *Team) Tasks() ([]claudecode.Task, []claudecode.Skipped, error) {
	st, err := t.State()
	if err != nil {
		return nil, nil, err
	}
	return claudecode.ReadTasks(relaunch.ClaudeConfigDir(st), st.ClaudeTeam)
}

// Restart relaunches a layout member in its pane and returns its new pid
// (see restartMember).
func (t *Team) Restart(ctx context.Context, member string) (int, error) {
	return t.restartMember(ctx, member)
}

// SupervisorPID is the pid of the team's running supervisor, 0 when none runs.
func (t *Team) SupervisorPID() (int, error) { return state.SupervisorPID(t.Name) }

// StartSupervisor starts `exe supervise` for the team in the background,
// unless one runs; it returns the supervisor's pid and whether it started it.
func (t *Team) StartSupervisor(exe string) (pid int, started bool, err error) {
	if pid, _ := state.SupervisorPID(t.Name); pid != 0 {
		return pid, false, nil
	}
	pid, err = startSupervisor(exe, t.Name)
	return pid, err == nil, err
}

// StopSupervisor ends the team's supervisor and waits until it is gone.
func (t *Team) StopSupervisor(ctx context.Context, timeout time.Duration) error {
	return state.StopSupervisor(ctx, t.Name, timeout, t.w.procs.End)
}
