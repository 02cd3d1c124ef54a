package main

import (
	"fmt"
	"strings"

	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/team"
)

// printBroughtUp says what up did of l's team, as far as it got (nothing
// with --quiet): the supervisor, then what came up and the members' table,
// or with --foreground the table and that this process supervises.
func printBroughtUp(o *upOptions, l *layouts.Layout, b *team.BroughtUp) {
	out := o.IO.Out
	switch {
	case o.quiet:
		return
	case b.SupervisorPID != 0 && b.SupervisorStarted:
		fmt.Fprintf(out, "supervisor started (pid %d)\n", b.SupervisorPID)
	case b.SupervisorPID != 0:
		fmt.Fprintf(out, "supervisor already running (pid %d)\n", b.SupervisorPID)
	}
	st := b.Status
	switch {
	case st == nil:
	case o.foreground:
		printStatusTable(o.IO, st)
		fmt.Fprintf(out, "\nsupervising team %s in the foreground; Ctrl-C stops the supervisor (the team keeps running)\n", l.Team)
	default:
		fmt.Fprintf(out, "\nteam %s is up: %d started, %d relaunched, %d already running (tmux -L %s)\n",
			l.Team, len(b.Started), len(b.Respawned), len(b.Kept), st.Socket)
		if len(b.Resumed)+len(b.Afresh)+len(b.Lost) > 0 {
			fmt.Fprintf(out, "resumed: %s; started afresh: %s; lost (the lead's to spawn again): %s\n",
				listOrNone(b.Resumed), listOrNone(b.Afresh), listOrNone(b.Lost))
		}
		printStatusTable(o.IO, st)
		if all := l.All(); len(all) > 0 {
			fmt.Fprintf(out, "\nteamctl attach %s --team %s   # step in (detach: prefix d)\n", all[0].Name, l.Team)
		}
	}
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
