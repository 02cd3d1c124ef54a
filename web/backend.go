package web

// This file is the only one of web that knows where teamctl's verbs and its
// team-folder contract live (packages team and state): the page acts through
// the very functions the commands call, so each action lands in events.jsonl
// as the command's does, marked as coming from the web and from where.

import (
	"context"

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
	// What the members changed and what a merge did, as `teamctl diff
	// --stat` and `merge` have them.
	TeamChanges = team.Changes
	MergeResult = team.MergeResult
	// What finish would do for a member and what it did, as `teamctl
	// finish` has them.
	FinishPlan   = team.FinishPlan
	FinishResult = team.FinishResult
	Finished     = team.Finished
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

// stateStalled is a member stalled at a prompt, as status has it.
const stateStalled = state.StateStalled

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
	// ScreenInColour is Screen with the pane's colours as SGR sequences,
	// for drawing only (the page's own escaper, ansi.go); dialogs are read
	// from Screen.
	ScreenInColour(ctx context.Context, team, member string) (string, error)
	// FollowScreen calls woke whenever member's pane prints, until ctx ends
	// or the pane's program ends.
	FollowScreen(ctx context.Context, team, member string, woke func()) error
	// As is the team's verbs, each recorded as done by by.
	As(by By) Actor
}

// Actor is what the page does to a team's member: team.Actions, the one
// adapter both cockpits act through.
type Actor interface {
	Answer(ctx context.Context, team, member string, a Answer) (Answered, error)
	Approve(ctx context.Context, team, member string) (string, error)
	Deny(ctx context.Context, team, member, reason string) (string, error)
	Send(ctx context.Context, team, member, text string) (string, error)
	Restart(ctx context.Context, team, member string) (int, error)
	// Changes is the team's `diff --stat`; Merge lands member's work in its
	// base (`teamctl merge MEMBER`).
	Changes(ctx context.Context, team string) (*TeamChanges, error)
	Merge(ctx context.Context, team, member string) (*MergeResult, error)
	// FileDiff is the diff of one of member's changed files (one its
	// changes list, or refused).
	FileDiff(ctx context.Context, team, member, path string) (string, error)
	// PlanFinish is what Finish would do, read without acting; Finish
	// stops member if it runs, lands its work and removes its worktree and
	// branch (`teamctl finish --yes MEMBER`).
	PlanFinish(ctx context.Context, team, member string) (*FinishPlan, error)
	Finish(ctx context.Context, team, member string) (*FinishResult, error)
}

// EventReader gives the events appended since its last Read.
type EventReader interface {
	Read(fn func(Event)) error
}

// Teamctl is the Backend of a real teamctl: its reads are the commands'
// own, its verbs and its screens are team's Actions (the adapter top acts
// through too), so each action lands in events.jsonl as the command's does.
type Teamctl struct {
	team.Actions
}

var _ Backend = Teamctl{}

// As is t's verbs, recorded as done by by (the web, from an address).
func (t Teamctl) As(by By) Actor { return t.Actions.As(by) }

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
