package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team"
)

// printDown says how many members of team name stopped and how (timeout
// their grace period), then down's warnings. failed: down did not finish
// (its error follows).
func printDown(io *iostreams.IO, name string, res *team.DownResult, timeout time.Duration, failed bool) {
	msg := fmt.Sprintf("team %s is down: %d stopped", name, len(res.Terminated))
	if failed {
		msg = fmt.Sprintf("team %s: %d stopped", name, len(res.Terminated))
	}
	if len(res.ShutDown) > 0 {
		msg += fmt.Sprintf(" (%s approved the shutdown request)", textsafe.Visible(strings.Join(res.ShutDown, ", ")))
	}
	if len(res.Killed) > 0 {
		msg += fmt.Sprintf(", %d killed after %s", len(res.Killed), timeout)
	}
	if len(res.Strays) > 0 {
		msg += fmt.Sprintf(", %d stray process(es) ended", len(res.Strays))
	}
	fmt.Fprintln(io.Out, msg)
	for _, w := range res.Warnings {
		fmt.Fprintf(io.ErrOut, "teamctl: warning: %s\n", textsafe.Lines(w))
	}
}
