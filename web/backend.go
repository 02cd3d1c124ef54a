package web

// This file holds what web reads of the teams and how it acts on them
// (Backend, Actor) and the real one over team's verbs: the page acts through
// the very functions the commands call, so each action lands in events.jsonl
// as the command's does, marked as coming from the web and from where. The
// types are team's and state's own, not aliases of web's.

import (
	"context"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team/model"
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

// Backend is what the server reads of the teams and how it acts on them.
type Backend interface {
	Teams() ([]string, error) // every team with state
	Status(ctx context.Context, name string) (*model.Status, error)
	TailEvents(name string, back int64) (EventReader, error)
	Watch(ctx context.Context, o state.WatchOptions) (*state.Watcher, error)
	// Screen is the visible screen of member's pane, as text (no escape
	// sequences).
	Screen(ctx context.Context, name, member string) (string, error)
	// ScreenInColour is Screen with the pane's colours as SGR sequences,
	// for drawing only (the page's own escaper, ansi.go); dialogs are read
	// from Screen.
	ScreenInColour(ctx context.Context, name, member string) (string, error)
	// FollowScreen calls woke whenever member's pane prints, until ctx ends
	// or the pane's program ends.
	FollowScreen(ctx context.Context, name, member string, woke func()) error
	// As is the team's verbs, each recorded as done by by.
	As(by model.By) Actor
}

// Actor is what the page does to a team's member: team.Actions, the one
// adapter both cockpits act through.
type Actor interface {
	Answer(ctx context.Context, name, member string, a model.Answer) (model.Answered, error)
	Approve(ctx context.Context, name, member string) (string, error)
	Deny(ctx context.Context, name, member, reason string) (string, error)
	Send(ctx context.Context, name, member, text string) (string, error)
	Restart(ctx context.Context, name, member string) (int, error)
	// Changes is the team's `diff --stat`; Merge lands member's work in its
	// base (`teamctl merge MEMBER`).
	Changes(ctx context.Context, name string) (*model.Changes, error)
	Merge(ctx context.Context, name, member string) (*model.MergeResult, error)
	// FileDiff is the diff of one of member's changed files (one its
	// changes list, or refused).
	FileDiff(ctx context.Context, name, member, path string) (string, error)
	// PlanFinish is what Finish would do, read without acting; Finish
	// stops member if it runs, lands its work and removes its worktree and
	// branch (`teamctl finish --yes MEMBER`).
	PlanFinish(ctx context.Context, name, member string) (*model.FinishPlan, error)
	Finish(ctx context.Context, name, member string) (*model.FinishResult, error)
}

// EventReader gives the events appended since its last Read.
type EventReader interface {
	Read(fn func(state.Event)) error
}
