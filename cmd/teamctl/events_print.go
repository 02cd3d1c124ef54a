package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
)

// formatEvent is one event for a person. Its text comes from teammates, hooks
// and panes, so every field is made visible (textsafe) before it reaches the
// terminal; --json prints the event as it is.
func formatEvent(io *iostreams.IO, e state.Event) string {
	var b strings.Builder
	v := textsafe.Visible
	fmt.Fprintf(&b, "%s  %-12s %-14s", e.Time.Local().Format(time.TimeOnly), v(e.Member), colorKind(io, e.Kind))
	switch e.Kind {
	case state.EventStall:
		fmt.Fprintf(&b, " %s: %s", v(e.Pattern), v(e.Line))
	case state.EventStallCleared:
		fmt.Fprintf(&b, " (was %s)", v(e.Pattern))
	case state.EventExit:
		if e.ExitCode != nil {
			fmt.Fprintf(&b, " exit code %d", *e.ExitCode)
		}
		if e.Signal != 0 {
			fmt.Fprintf(&b, " signal %d", e.Signal)
		}
	case state.EventAnswer:
		if e.Option != "" {
			fmt.Fprintf(&b, " chose %s,", v(fmt.Sprintf("%q", e.Option)))
		}
		fmt.Fprintf(&b, " keys %s", typedKeys(e.Keys))
	case state.EventRestart:
		fmt.Fprintf(&b, " restart #%d", e.Restarts)
	}
	if e.Detail != "" {
		fmt.Fprintf(&b, " %s", v(e.Detail))
	}
	return strings.TrimRight(b.String(), " ")
}

func colorKind(io *iostreams.IO, kind state.EventKind) string {
	padded := fmt.Sprintf("%-14s", textsafe.Visible(string(kind)))
	switch kind {
	case state.EventStall, state.EventFailed:
		return io.Color("31", padded)
	case state.EventIdle, state.EventLimited:
		return io.Color("33", padded)
	}
	return padded
}
