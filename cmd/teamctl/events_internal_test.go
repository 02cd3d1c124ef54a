package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/state"
)

// TestNewCmdEvents: argv becomes the query (--since back from now or at a
// time, --tail, all without it, --follow), --json and --team; a --since or
// --tail that means nothing is a usage error, and nothing is done but the
// run function.
func TestNewCmdEvents(t *testing.T) {
	at := time.Date(2025, 6, 1, 9, 0, 0, 0, time.FixedZone("", 2*3600))
	for _, c := range []struct {
		args []string
		want state.EventQuery
		back time.Duration // Since, as a duration back from now
		json bool
		err  string
	}{
		{args: nil, want: state.EventQuery{Tail: -1}},
		{args: []string{"--since", "10m", "--tail", "20", "-f", "--json"}, want: state.EventQuery{Tail: 20, Follow: true}, back: 10 * time.Minute, json: true},
		{args: []string{"--since", "2025-06-01T09:00:00+02:00", "--tail", "0"}, want: state.EventQuery{Since: at, Tail: 0}},
		{args: []string{"--since", "yesterday"}, err: `--since "yesterday": want a duration such as 10m or 1h30m, or an RFC 3339 time such as 2025-06-01T09:00:00Z`},
		{args: []string{"--since", "-5m"}, err: `--since "-5m": a duration back from now must not be negative`},
		{args: []string{"--tail", "-1"}, err: "--tail -1: want a number of events, 0 or more"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var got *eventsOptions
			g := &globals{}
			cmd := newEventsCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), g, func(_ context.Context, o *eventsOptions) error {
				got = o
				return nil
			})
			cmd.SetArgs(append(c.args, "--team", "auth-fix"))
			cmd.SetOut(new(bytes.Buffer))
			cmd.SetErr(new(bytes.Buffer))
			before := time.Now()
			err := cmd.Execute()
			after := time.Now()
			var ue *usageError
			if c.err != "" {
				if !errors.As(err, &ue) || err.Error() != c.err || got != nil {
					t.Fatalf("error %v (a usage error: %v), run: %v; want %q", err, ue != nil, got != nil, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			q := got.Query
			since := q.Since.Equal(c.want.Since)
			if c.back > 0 {
				since = !q.Since.Before(before.Add(-c.back)) && !q.Since.After(after.Add(-c.back))
			}
			if !since || q.Tail != c.want.Tail || q.Follow != c.want.Follow || got.JSON != c.json || g.team != "auth-fix" {
				t.Errorf("options %+v, team %q; want the query %+v", got, g.team, c.want)
			}
		})
	}
}

// TestEventsRun: each event the query picks is a line for a person, every
// field made visible, or with --json the event as it is; the query is the
// options'; an error is the log's.
func TestEventsRun(t *testing.T) {
	at := time.Date(2026, 3, 4, 9, 41, 7, 0, time.UTC)
	code := 3
	evs := []state.Event{
		{Time: at, Team: "auth-fix", Member: "lead", Kind: state.EventStall, Pattern: "permission", Line: "Do you want to \x1b[2Jproceed?"},
		{Time: at, Team: "auth-fix", Member: "web", Kind: state.EventExit, ExitCode: &code, Detail: "restarting in 1s"},
		{Time: at, Team: "auth-fix", Member: "lead", Kind: state.EventAnswer, Option: "4. No", Keys: []string{"4"}},
		{Time: at, Team: "auth-fix", Member: "web", Kind: state.EventRestart, Restarts: 2},
	}
	clock := at.Local().Format(time.TimeOnly)
	text := clock + `  lead         stall          permission: Do you want to \x1b[2Jproceed?` + "\n" +
		clock + "  web          exit           exit code 3 restarting in 1s\n" +
		clock + `  lead         answer         chose "4. No", keys 4` + "\n" +
		clock + "  web          restart        restart #2\n"
	for _, c := range []struct {
		name string
		json bool
		err  error
		want string
	}{
		{name: "text", want: text},
		{name: "json", json: true, want: `{"time":"2026-03-04T09:41:07Z","team":"auth-fix","member":"lead","kind":"stall","pattern":"permission","line":"Do you want to \u001b[2Jproceed?"}` + "\n" +
			`{"time":"2026-03-04T09:41:07Z","team":"auth-fix","member":"web","kind":"exit","exit_code":3,"detail":"restarting in 1s"}` + "\n" +
			`{"time":"2026-03-04T09:41:07Z","team":"auth-fix","member":"lead","kind":"answer","keys":["4"],"option":"4. No"}` + "\n" +
			`{"time":"2026-03-04T09:41:07Z","team":"auth-fix","member":"web","kind":"restart","restarts":2}` + "\n"},
		{name: "unreadable", err: errors.New("read events: permission denied"), want: text[:strings.Index(text, "\n")+1]},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			want := state.EventQuery{Since: at, Tail: 5, Follow: true}
			var asked []state.EventQuery
			err := eventsRun(context.Background(), &eventsOptions{
				IO:    iostreams.Test(nil, &out, new(bytes.Buffer)),
				JSON:  c.json,
				Query: want,
				Events: func(_ context.Context, q state.EventQuery, fn func(state.Event)) error {
					asked = append(asked, q)
					for _, e := range evs {
						fn(e)
						if c.err != nil {
							return c.err
						}
					}
					return nil
				},
			})
			if !errors.Is(err, c.err) {
				t.Fatalf("error %v, want %v", err, c.err)
			}
			if len(asked) != 1 || asked[0] != want {
				t.Errorf("asked for %+v, want %+v", asked, want)
			}
			if out.String() != c.want {
				t.Errorf("printed\n%s\nwant\n%s", out.String(), c.want)
			}
		})
	}
}
