package main

import (
	"context"
	"fmt"

	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team"
)

// upAllRun is up --all: every lost team back (team.UpAll), each said as it
// comes back.
func upAllRun(ctx context.Context, o *upOptions) error {
	res, err := o.UpAll(ctx, team.UpAllOptions{BringUpOptions: o.bringUpOptions(), Begin: o.sayLost, Done: o.lostDone})
	if err == nil && len(res.Lost) == 0 && !o.quiet {
		fmt.Fprintln(o.IO.Out, "no team is lost; nothing to bring back")
	}
	return err
}

// sayLost heads what up --all says of a lost team it brings back.
func (o *upOptions) sayLost(t team.TeamSummary) {
	if !o.quiet {
		fmt.Fprintf(o.IO.Out, "== %s (%s)\n", textsafe.Visible(t.Team), textsafe.Visible(t.Layout))
	}
}

// lostDone says how a lost team came back, and with --foreground supervises
// it here; an error is said on stderr and is the team's.
func (o *upOptions) lostDone(ctx context.Context, t team.LostTeam) error {
	err := t.Err
	if t.Up != nil {
		printBroughtUp(o, t.Layout, t.Up)
	}
	if err == nil && o.foreground {
		err = o.Supervise(ctx, t.Name)
	}
	if err != nil {
		fmt.Fprintf(o.IO.ErrOut, "teamctl: team %s: %s\n", textsafe.Visible(t.Name), textsafe.Lines(err.Error()))
	}
	return err
}
