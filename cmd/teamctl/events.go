package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/supervisor"
)

func newEventsCmd(io *iostreams.IO, g *globals) *cobra.Command {
	var follow, asJSON bool
	cmd := &cobra.Command{
		Use: "events",
		Example: `  teamctl events -f
  teamctl events --since 10m
  teamctl events --tail 20 -f --json
  teamctl events --since 2025-06-01T09:00:00+02:00 --team auth-fix`,
		Short: "Show the team's events: stalls, idle members, exits, restarts, adoptions",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			team, err := supervisor.FindTeam(cmd.Context(), g.team, g.tmuxBin)
			if err != nil {
				return err
			}
			show := func(e supervisor.Event) {
				if asJSON {
					b, _ := json.Marshal(e)
					fmt.Fprintln(io.Out, string(b))
					return
				}
				fmt.Fprintln(io.Out, formatEvent(io, e))
			}
			if follow {
				return supervisor.FollowEvents(cmd.Context(), team, show)
			}
			evs, err := supervisor.ReadEvents(team)
			if err != nil {
				return err
			}
			for _, e := range evs {
				show(e)
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing events as they happen")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object a line")
	return cmd
}

// formatEvent is one event for a person. Its text comes from teammates, hooks
// and panes, so every field is made visible (textsafe) before it reaches the
// terminal; --json prints the event as it is.
func formatEvent(io *iostreams.IO, e supervisor.Event) string {
	var b strings.Builder
	v := textsafe.Visible
	fmt.Fprintf(&b, "%s  %-12s %-14s", e.Time.Local().Format(time.TimeOnly), v(e.Member), colorKind(io, v(e.Kind)))
	switch e.Kind {
	case supervisor.EventStall:
		fmt.Fprintf(&b, " %s: %s", v(e.Pattern), v(e.Line))
	case supervisor.EventStallCleared:
		fmt.Fprintf(&b, " (was %s)", v(e.Pattern))
	case supervisor.EventExit:
		if e.ExitCode != nil {
			fmt.Fprintf(&b, " exit code %d", *e.ExitCode)
		}
		if e.Signal != 0 {
			fmt.Fprintf(&b, " signal %d", e.Signal)
		}
	case supervisor.EventAnswer:
		fmt.Fprintf(&b, " keys %q", e.Keys)
	case supervisor.EventRestart:
		fmt.Fprintf(&b, " restart #%d", e.Restarts)
	}
	if e.Detail != "" {
		fmt.Fprintf(&b, " %s", v(e.Detail))
	}
	return strings.TrimRight(b.String(), " ")
}

func colorKind(io *iostreams.IO, kind string) string {
	padded := fmt.Sprintf("%-14s", kind)
	switch kind {
	case supervisor.EventStall, supervisor.EventFailed:
		return io.Color("31", padded)
	case supervisor.EventIdle:
		return io.Color("33", padded)
	}
	return padded
}
