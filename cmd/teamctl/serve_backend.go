package main

import (
	"context"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team"
	"github.com/teamctl/teamctl/web"
)

// serveBackend is serve's web.Backend, a real teamctl: its reads are the commands'
// own, its verbs and its screens are team's Actions (the adapter top acts
// through too), so each action lands in events.jsonl as the command's does.
type serveBackend struct {
	team.Actions
}

var _ web.Backend = serveBackend{}

// As is t's verbs, recorded as done by by (the web, from an address).
func (t serveBackend) As(by team.By) web.Actor { return t.Actions.As(by) }

// Teams are the teams with a state folder.
func (t serveBackend) Teams() ([]string, error) { return state.List() }

// Status is `teamctl status`.
func (t serveBackend) Status(ctx context.Context, name string) (*team.Status, error) {
	tm, err := team.Open(ctx, name, t.TmuxBin)
	if err != nil {
		return nil, err
	}
	return tm.Status(ctx)
}

// TailEvents follows the team's events from about the last back bytes on.
func (t serveBackend) TailEvents(name string, back int64) (web.EventReader, error) {
	return state.TailEvents(name, back)
}

// Watch watches every team's state folder (state.Watch); the folder of teams
// is made first, so a serve started before any team still sees one come.
func (t serveBackend) Watch(ctx context.Context, o state.WatchOptions) (*state.Watcher, error) {
	if err := state.EnsureRoot(); err != nil {
		return nil, err
	}
	return state.Watch(ctx, o)
}
