package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team"
)

func newEventsCmd(io *iostreams.IO, g *globals) *cobra.Command {
	var follow, asJSON bool
	var since string
	var tail int
	cmd := &cobra.Command{
		Use: "events",
		Example: `  teamctl events -f
  teamctl events --since 10m
  teamctl events --tail 20 -f --json
  teamctl events --since 2025-06-01T09:00:00+02:00 --team auth-fix`,
		Short: "Show the team's events: stalls, idle members, exits, restarts, adoptions",
		Long: `Show the team's events (events.jsonl in its state folder, and its rotated
files, oldest first). --since keeps those from a moment on: a duration back from
now (10m, 1h30m) or a time (RFC 3339, 2025-06-01T09:00:00Z). --tail N keeps the
last N of them. With --follow, new events are printed as they happen after those.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var from time.Time
			if since != "" {
				t, err := parseSince(since, time.Now())
				if err != nil {
					return usagef(cmd, "--since %q: %v", since, err)
				}
				from = t
			}
			if tail < 0 {
				return usagef(cmd, "--tail %d: want a number of events, 0 or more", tail)
			}
			if !cmd.Flags().Changed("tail") {
				tail = -1 // all
			}
			name, err := team.Find(cmd.Context(), g.team, g.tmuxBin)
			if err != nil {
				return err
			}
			show := func(e state.Event) {
				if e.Time.Before(from) {
					return
				}
				if asJSON {
					b, _ := json.Marshal(e)
					fmt.Fprintln(io.Out, string(b))
					return
				}
				fmt.Fprintln(io.Out, formatEvent(io, e))
			}
			backlog := func(evs []state.Event) {
				// Several writers append, so the log is in time order only
				// roughly: every event is looked at, not a search's cut.
				evs = slices.DeleteFunc(evs, func(e state.Event) bool { return e.Time.Before(from) })
				if tail >= 0 && len(evs) > tail {
					evs = evs[len(evs)-tail:]
				}
				for _, e := range evs {
					show(e)
				}
			}
			if follow {
				return state.FollowEventsAfter(cmd.Context(), name, backlog, show)
			}
			evs, err := state.ReadEvents(name)
			if err != nil {
				return err
			}
			backlog(evs)
			return nil
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing events as they happen")
	addJSONFlag(cmd, &asJSON, "print one JSON object a line")
	cmd.Flags().StringVar(&since, "since", "", "only events from then on: a duration back from now (10m) or an RFC 3339 time")
	cmd.Flags().IntVar(&tail, "tail", 0, "only the last N events (then new ones, with -f)")
	cmd.Flags().Lookup("tail").DefValue = "all"
	g.addTeamFlag(cmd, teamFlagUsage)
	return cmd
}

// parseSince reads --since: a duration back from now, or an RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("a duration back from now must not be negative")
		}
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("want a duration such as 10m or 1h30m, or an RFC 3339 time such as 2025-06-01T09:00:00Z")
}

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
	case state.EventIdle:
		return io.Color("33", padded)
	}
	return padded
}
