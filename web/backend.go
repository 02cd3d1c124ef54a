package web

// This file is the only one of web that knows where teamctl's verbs and its
// team-folder contract live (packages team and state): the page acts through
// the very functions the commands call, so each action lands in events.jsonl
// as the command's does, marked as coming from the web and from where.

import (
	"context"
	"errors"
	"strings"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team"
)

// The team's status and events, as `teamctl status --json` and `events
// --json` have them; an answer and what it sent, as `teamctl answer` has
// them; who acts (the web, from an address).
type (
	Status   = team.Status
	Member   = team.MemberStatus
	Event    = state.Event
	Answer   = team.Answer
	Answered = team.Answered
	By       = team.By
	Stall    = team.Stall
)

// A watch of the teams' state folders, as state.Watch has it.
type (
	Watcher      = state.Watcher
	WatchOptions = state.WatchOptions
	Changes      = state.Changes
)

// The changes of a team's folder the hub acts on.
const (
	changedStatus = state.ChangedState | state.ChangedLive | state.ChangedFolder
	changedEvents = state.ChangedEvents
)

// waitsForPerson: stalled at a prompt, or a permission request no rule
// answered (as top has it).
func waitsForPerson(m Member) bool {
	return m.State == state.StateStalled || m.State == state.StateWaitingApproval
}

func failed(m Member) bool { return m.State == state.StateFailed }

// stateStalled is a member stalled at a prompt, as status has it.
const stateStalled = state.StateStalled

// up: the team was not brought down and a member of it still runs (as
// `teamctl teams` has it).
func up(s *Status) bool {
	if s.StoppedAt != nil {
		return false
	}
	for _, m := range s.Members {
		if m.State != state.StateExited && m.State != state.StateFailed {
			return true
		}
	}
	return false
}

// validTeam reports whether name may be a team's name.
func validTeam(name string) bool { return state.ValidTeamName(name) }

// NotRecordedError is an answer whose keys were sent but could not be
// recorded: it happened, and is not to be sent again.
type NotRecordedError = team.NotRecordedError

// Backend is what the server reads of the teams and how it acts on them.
type Backend interface {
	Teams() ([]string, error) // every team with state
	Status(ctx context.Context, team string) (*Status, error)
	TailEvents(team string, back int64) (EventReader, error)
	Watch(ctx context.Context, o WatchOptions) (*Watcher, error)
	// Screen is the visible screen of member's pane, as text (no escape
	// sequences).
	Screen(ctx context.Context, team, member string) (string, error)
	// FollowScreen calls woke whenever member's pane prints, until ctx ends
	// or the pane's program ends.
	FollowScreen(ctx context.Context, team, member string, woke func()) error
	Answer(ctx context.Context, by By, team, member string, a Answer) (Answered, error)
	Approve(ctx context.Context, by By, team, member string) (string, error)
	Deny(ctx context.Context, by By, team, member, reason string) (string, error)
	Send(ctx context.Context, by By, team, member, text string) (string, error)
	Restart(ctx context.Context, by By, team, member string) (int, error)
}

// EventReader gives the events appended since its last Read.
type EventReader interface {
	Read(fn func(Event)) error
}

// Teamctl is the Backend of a real teamctl: the functions its commands call.
type Teamctl struct {
	TmuxBin string // "" for tmux from PATH
}

var _ Backend = Teamctl{}

// Teams are the teams with a state folder.
func (t Teamctl) Teams() ([]string, error) { return state.List() }

// Status is `teamctl status`.
func (t Teamctl) Status(ctx context.Context, name string) (*Status, error) {
	tm, err := team.Open(ctx, name, t.TmuxBin)
	if err != nil {
		return nil, err
	}
	return tm.Status(ctx)
}

// TailEvents follows the team's events from about the last back bytes on.
func (t Teamctl) TailEvents(name string, back int64) (EventReader, error) {
	return state.TailEvents(name, back)
}

// Watch watches every team's state folder (state.Watch); the folder of teams
// is made first, so a serve started before any team still sees one come.
func (t Teamctl) Watch(ctx context.Context, o WatchOptions) (*Watcher, error) {
	if err := state.EnsureRoot(); err != nil {
		return nil, err
	}
	return state.Watch(ctx, o)
}

// Screen captures member's pane on the team's server (capture-pane without
// -e: text, no escape sequences); an ended member's last lines, as status
// kept them.
func (t Teamctl) Screen(ctx context.Context, name, member string) (string, error) {
	tm, err := team.Open(ctx, name, t.TmuxBin)
	if err != nil {
		return "", err
	}
	s, err := tm.Status(ctx)
	if err != nil {
		return "", err
	}
	for _, m := range s.Members {
		if m.Name != member {
			continue
		}
		if m.State.Ended() {
			return strings.Join(m.LastLines, "\n"), nil
		}
		return tm.Server().CapturePane(ctx, m.Pane)
	}
	return "", errors.New("team " + name + " has no member " + quote(member))
}

// FollowScreen is `teamctl logs -f` (team's Logs, following): woken by the
// pane's output through a control client, not by polling.
func (t Teamctl) FollowScreen(ctx context.Context, name, member string, woke func()) error {
	tm, err := team.Open(ctx, name, t.TmuxBin)
	if err != nil {
		return err
	}
	return tm.Logs(ctx, member, team.LogsOptions{Follow: true}, func(string) { woke() })
}

func (t Teamctl) open(ctx context.Context, by By, name string) (*team.Team, error) {
	tm, err := team.Open(ctx, name, t.TmuxBin)
	if err != nil {
		return nil, err
	}
	tm.ActingAs(by)
	return tm, nil
}

// Answer is `teamctl answer`.
func (t Teamctl) Answer(ctx context.Context, by By, name, member string, a Answer) (Answered, error) {
	tm, err := t.open(ctx, by, name)
	if err != nil {
		return Answered{}, err
	}
	got, err := tm.Answer(ctx, member, a)
	if got == nil {
		return Answered{}, err
	}
	return *got, err
}

// Approve is `teamctl approve MEMBER`.
func (t Teamctl) Approve(ctx context.Context, by By, name, member string) (string, error) {
	tm, err := t.open(ctx, by, name)
	if err != nil {
		return "", err
	}
	return tm.Approve(ctx, member, "")
}

// Deny is `teamctl deny MEMBER --reason TEXT`.
func (t Teamctl) Deny(ctx context.Context, by By, name, member, reason string) (string, error) {
	tm, err := t.open(ctx, by, name)
	if err != nil {
		return "", err
	}
	return tm.Deny(ctx, member, "", reason)
}

// Send is `teamctl send MEMBER TEXT`.
func (t Teamctl) Send(ctx context.Context, by By, name, member, text string) (string, error) {
	tm, err := t.open(ctx, by, name)
	if err != nil {
		return "", err
	}
	return tm.Send(ctx, member, text)
}

// Restart is `teamctl restart MEMBER`.
func (t Teamctl) Restart(ctx context.Context, by By, name, member string) (int, error) {
	tm, err := t.open(ctx, by, name)
	if err != nil {
		return 0, err
	}
	return tm.Restart(ctx, member)
}
