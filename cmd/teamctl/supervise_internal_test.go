package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor"
)

// TestNewCmdSupervise: argv becomes the options (--team, the hidden
// --log-to-file), and nothing is done but the run function.
func TestNewCmdSupervise(t *testing.T) {
	var got *superviseOptions
	ios, _, _ := bufIO("")
	g := &globals{tmuxBin: "/opt/tmux"}
	cmd := newSuperviseCmd(ios, g, func(_ context.Context, o *superviseOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"--team", "auth", "--log-to-file"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Team != "auth" || !got.ToFile || got.TmuxBin != "/opt/tmux" {
		t.Fatalf("options %+v", got)
	}
}

// TestSuperviseRun: the daemon runs for the team found, with its settings
// from the environment (debug lines, the first restart's delay, Claude
// Code's program) and this teamctl for the hooks; one already supervised is
// nothing to do; a delay that is not one stops it before it starts.
func TestSuperviseRun(t *testing.T) {
	for _, c := range []struct {
		name, backoff, debug string
		limit                string
		wantLimit            int
		supErr               error
		err, errOut          string
		wantBackoff          time.Duration
		ran                  bool
	}{
		{name: "supervised", ran: true},
		{name: "with the environment's settings", backoff: "250ms", debug: "1", wantBackoff: 250 * time.Millisecond, ran: true},
		{name: "one already runs", supErr: fmt.Errorf("team auth: %w", state.ErrSupervised), ran: true,
			errOut: fmt.Sprintf("teamctl: team auth: %v; nothing to do\n", state.ErrSupervised)},
		{name: "it fails", supErr: errors.New("no server"), err: "no server", ran: true},
		{name: "a delay that is none", backoff: "soon", err: `TEAMCTL_RESTART_BACKOFF="soon": want a positive duration such as 1s`},
		{name: "a restart limit", limit: "2", wantLimit: 2, ran: true},
		{name: "a restart limit that is none", limit: "0", err: `TEAMCTL_RESTART_LIMIT="0": want a positive number such as 5`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("TEAMCTL_RESTART_BACKOFF", c.backoff)
			t.Setenv("TEAMCTL_RESTART_LIMIT", c.limit)
			t.Setenv("TEAMCTL_DEBUG", c.debug)
			t.Setenv("TEAMCTL_CLAUDE", "/opt/claude")
			ios, out, errOut := bufIO("")
			var found, ran string
			var got supervisor.SuperviseOptions
			err := superviseRun(context.Background(), &superviseOptions{IO: ios, Team: "", TmuxBin: "/opt/tmux",
				Find: func(_ context.Context, flag string) (string, error) { found = flag; return "auth", nil },
				Supervise: func(_ context.Context, name string, o supervisor.SuperviseOptions) error {
					ran, got = name, o
					return c.supErr
				}})
			if c.err != "" && (err == nil || err.Error() != c.err) || c.err == "" && err != nil {
				t.Fatalf("error %v, want %q", err, c.err)
			}
			if found != "" || (ran == "auth") != c.ran {
				t.Errorf("found with %q, supervised %q", found, ran)
			}
			if c.ran && (got.TmuxBin != "/opt/tmux" || got.ClaudeOverride != "/opt/claude" || got.Teamctl == "" || got.MinBackoff != c.wantBackoff || got.MaxExits != c.wantLimit ||
				got.Log == nil || got.Log.Enabled(context.Background(), slog.LevelDebug) != (c.debug != "")) {
				t.Errorf("supervised with %+v", got)
			}
			if out.Len() != 0 || errOut.String() != c.errOut {
				t.Errorf("printed %q, on stderr %q; want %q", out.String(), errOut.String(), c.errOut)
			}
		})
	}
	// The team not found: nothing runs.
	ios, _, _ := bufIO("")
	err := superviseRun(context.Background(), &superviseOptions{IO: ios,
		Find:      func(context.Context, string) (string, error) { return "", errors.New("no team is up") },
		Supervise: func(context.Context, string, supervisor.SuperviseOptions) error { t.Error("supervised"); return nil }})
	if err == nil || !strings.Contains(err.Error(), "no team is up") {
		t.Errorf("error %v", err)
	}
}

// TestSuperviseLogsToErrOut: the daemon's log is on stderr unless
// --log-to-file.
func TestSuperviseLogsToErrOut(t *testing.T) {
	ios, _, errOut := bufIO("")
	o, done, err := supervisorOptions(&superviseOptions{IO: ios}, "auth", func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	o.Log.Info("watching")
	if !strings.Contains(errOut.String(), "msg=watching") {
		t.Errorf("logged %q on stderr", errOut.String())
	}
}
