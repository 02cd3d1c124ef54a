package main

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/layouts"
)

// TestNewCmdDemo: --no-attach becomes the options, and nothing is done but
// the run function; demo takes no arguments.
func TestNewCmdDemo(t *testing.T) {
	var got *demoOptions
	cmd := newDemoCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), &globals{}, func(_ context.Context, o *demoOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"--no-attach"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || !got.NoAttach || got.Up == nil || got.Attach == nil {
		t.Fatalf("options %+v", got)
	}
	cmd.SetArgs([]string{"auth-fix"})
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	if err := cmd.Execute(); err == nil {
		t.Error("demo with an argument: no error")
	}
}

// TestDemoRun: the demo team comes up, then teamctl attaches to its lead on
// a terminal and says how to watch and stop it; with --no-attach, or without
// a terminal, it says how to step in instead; a team that does not come up
// is the error, with nothing more said.
func TestDemoRun(t *testing.T) {
	const (
		watch    = "teamctl top --team demo (y/n answers a question on screen, a/d approves or denies a permission request)\n"
		detached = "\nNot attaching (no terminal). Watch and answer the whole team with: " + watch +
			"Step in with: teamctl attach lead --team demo\nStop it with: teamctl down --team demo\n"
		attaching = "\nAttaching to the lead; detach with the tmux prefix then d. Then watch and answer the whole team with: " + watch +
			"Stop the demo with: teamctl down --team demo\n"
	)
	upErr := errors.New("up demo: tmux: not found")
	for _, c := range []struct {
		name               string
		noAttach, terminal bool
		upErr              error
		want, attached     string
	}{
		{name: "attached", terminal: true, want: attaching, attached: "demo/lead"},
		{name: "no terminal", want: detached},
		{name: "no-attach", noAttach: true, terminal: true, want: detached},
		{name: "not up", terminal: true, upErr: upErr},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			ios := iostreams.Test(nil, &out, new(bytes.Buffer))
			if c.terminal {
				ios, _ = terminalIO(t, &out, new(bytes.Buffer))
			}
			ups, attached := 0, ""
			err := demoRun(context.Background(), &demoOptions{
				IO:       ios,
				NoAttach: c.noAttach,
				Up: func(context.Context) (*layouts.Layout, error) {
					ups++
					return &layouts.Layout{Team: "demo", Lead: layouts.Member{Name: "lead"}}, c.upErr
				},
				Attach: func(_ context.Context, team, member string) error {
					attached = team + "/" + member
					return nil
				},
			})
			if !errors.Is(err, c.upErr) {
				t.Fatalf("error %v, want %v", err, c.upErr)
			}
			if ups != 1 || attached != c.attached {
				t.Errorf("up %d times, attached to %q; want once, and %q", ups, attached, c.attached)
			}
			if out.String() != c.want {
				t.Errorf("printed %q, want %q", out.String(), c.want)
			}
		})
	}
}
