package main

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/creack/pty"

	"github.com/teamctl/teamctl/cockpit"
	"github.com/teamctl/teamctl/internal/iostreams"
)

// TestNewCmdTop: argv becomes the options (--team), and nothing is done but
// the run function.
func TestNewCmdTop(t *testing.T) {
	var got *topOptions
	ios, _, _ := bufIO("")
	g := &globals{tmuxBin: "/opt/tmux"}
	cmd := newTopCmd(ios, g, func(_ context.Context, o *topOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"--team", "demo"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || g.team != "demo" || got.TmuxBin != "/opt/tmux" {
		t.Fatalf("options %+v, team %q", got, g.team)
	}
	got = nil
	cmd.SetArgs([]string{"demo"})
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	if err := cmd.Execute(); err == nil || got != nil {
		t.Errorf("top with an argument: %v, run %v", err, got != nil)
	}
}

// TestTopRun: the cockpit shows the team found, or every team up, on the
// terminal; without one, or without a team, it says so before any screen.
func TestTopRun(t *testing.T) {
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptm.Close()
	defer tty.Close()
	for _, c := range []struct {
		name     string
		terminal bool
		team     string
		all      []string
		findErr  error
		err      string
	}{
		{name: "one team", terminal: true, team: "auth"},
		{name: "every team up", terminal: true, all: []string{"auth", "web"}},
		{name: "no team", terminal: true, findErr: errors.New("no team is up"), err: "no team is up"},
		{name: "no terminal", err: "teamctl top needs a terminal on its standard input and output; to watch a team from a script or a pipe, use `teamctl status -w`"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ios, out, _ := bufIO("")
			if c.terminal {
				ios = iostreams.Terminal(tty, out, out, 80, true)
			}
			var shown *cockpit.RunOptions
			looked := false
			err := topRun(context.Background(), &topOptions{IO: ios, TmuxBin: "/opt/tmux", Nested: true,
				Find: func(context.Context) (string, []string, error) { looked = true; return c.team, c.all, c.findErr },
				Run: func(_ context.Context, o cockpit.RunOptions) error {
					shown = &o
					return nil
				}})
			if c.err != "" {
				if err == nil || err.Error() != c.err || shown != nil || looked != c.terminal {
					t.Errorf("error %v, shown %+v, looked %v; want the error %q", err, shown, looked, c.err)
				}
				return
			}
			if err != nil || shown == nil {
				t.Fatalf("error %v, shown %+v", err, shown)
			}
			if shown.Team != c.team || shown.All != (c.all != nil) || !slices.Equal(shown.Teams, c.all) || shown.Backend.(topBackend).TmuxBin != "/opt/tmux" ||
				shown.In != tty || shown.Out != out || !shown.Color || !shown.Nested {
				t.Errorf("shown %+v", shown)
			}
		})
	}
}
