package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/state"
)

// eventsOptions are what `teamctl events` shows.
type eventsOptions struct {
	IO    *iostreams.IO
	JSON  bool
	Query state.EventQuery
	// Events hands fn the events q picks of the team the command is about
	// (state.QueryEvents).
	Events func(ctx context.Context, q state.EventQuery, fn func(state.Event)) error
}

// newEventsCmd makes `teamctl events`; runF, when not nil, is run in
// eventsRun's place (tests of the flags).
func newEventsCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *eventsOptions) error) *cobra.Command {
	opts := &eventsOptions{IO: ios, Events: func(ctx context.Context, q state.EventQuery, fn func(state.Event)) error {
		name, err := g.find(ctx, "")
		if err != nil {
			return err
		}
		return state.QueryEvents(ctx, name, q, fn)
	}}
	var since string
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
last N of them. With --follow, new events are printed as they happen after those
(across rotations: events.jsonl.1 to .3 are the rotated files).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			q := &opts.Query
			if since != "" {
				t, err := parseSince(since, time.Now())
				if err != nil {
					return usagef(cmd, "--since %q: %v", since, err)
				}
				q.Since = t
			}
			if q.Tail < 0 {
				return usagef(cmd, "--tail %d: want a number of events, 0 or more", q.Tail)
			}
			if !cmd.Flags().Changed("tail") {
				q.Tail = -1 // all
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return eventsRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Query.Follow, "follow", "f", false, "keep printing events as they happen")
	addJSONFlag(cmd, &opts.JSON, "print one JSON object a line")
	cmd.Flags().StringVar(&since, "since", "", "only events from then on: a duration back from now (10m) or an RFC 3339 time")
	cmd.Flags().IntVar(&opts.Query.Tail, "tail", 0, "only the last N events (then new ones, with -f)")
	cmd.Flags().Lookup("tail").DefValue = "all"
	g.addTeamFlag(cmd, teamFlagUsage)
	return cmd
}

func eventsRun(ctx context.Context, opts *eventsOptions) error {
	return opts.Events(ctx, opts.Query, func(e state.Event) {
		if opts.JSON {
			b, _ := json.Marshal(e)
			fmt.Fprintln(opts.IO.Out, string(b))
			return
		}
		fmt.Fprintln(opts.IO.Out, formatEvent(opts.IO, e))
	})
}
