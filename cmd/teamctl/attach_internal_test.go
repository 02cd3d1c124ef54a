package main

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"testing"

	"github.com/creack/pty"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/team"
)

// terminalIO is an IO whose standard input is a terminal (a pty's) and whose
// output goes to out and errOut, as a person's at a terminal; the pty's
// other end is returned, to type into.
func terminalIO(t *testing.T, out, errOut *bytes.Buffer) (*iostreams.IO, func(string)) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	return iostreams.Terminal(tty, out, errOut, 80, false), func(s string) {
		if _, err := ptmx.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNewCmdAttach: argv becomes the options (the member, --team), and
// nothing is done but the run function.
func TestNewCmdAttach(t *testing.T) {
	var got *attachOptions
	g := &globals{}
	cmd := newAttachCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), g, func(_ context.Context, o *attachOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"researcher", "--team", "auth-fix"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Member != "researcher" || g.team != "auth-fix" || got.Exec == nil {
		t.Fatalf("options %+v, team %q", got, g.team)
	}
	cmd.SetArgs([]string{})
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	if err := cmd.Execute(); err == nil {
		t.Error("attach without a member: no error")
	}
}

// fakeAttacher is a team whose server's prefix is C-a.
type fakeAttacher struct {
	attached []string
	err      error
}

func (f *fakeAttacher) Attach(_ context.Context, member string) (*team.Attachment, error) {
	f.attached = append(f.attached, member)
	if f.err != nil {
		return nil, f.err
	}
	return &team.Attachment{Prefix: "C-a"}, nil
}

// TestAttachRun: the member's pane is readied in the team that has it, then
// its command runs on the terminal; without a terminal it says what to do
// instead, inside tmux how to detach the nested client (printed, and on the
// status line); the attach's exit code is teamctl's.
func TestAttachRun(t *testing.T) {
	exit3 := exec.Command("sh", "-c", "exit 3").Run()
	nested := "teamctl: you are inside tmux, so this opens a nested client: detach it with C-a C-a d (the first C-a goes to the outer tmux)"
	for _, c := range []struct {
		name, tmux   string
		terminal     bool
		team         *fakeAttacher
		execErr      error
		errOut, hint string
		ran          bool
		err          string
		code         int
	}{
		{name: "attached", terminal: true, team: &fakeAttacher{}, ran: true},
		{name: "nested", tmux: "/tmp/tmux-1000/default,1,0", terminal: true, team: &fakeAttacher{}, ran: true, errOut: nested + "\n", hint: nested},
		{name: "no terminal", team: &fakeAttacher{},
			err: "attach needs a terminal, and its standard input or output is not one here (a pipe, a file, a script): run it from a terminal; `teamctl status --team auth-fix` shows what web is doing without one"},
		{name: "no member", terminal: true, team: &fakeAttacher{err: errors.New(`team auth-fix has no member "web"`)}, err: `team auth-fix has no member "web"`},
		{name: "exit code", terminal: true, team: &fakeAttacher{}, execErr: exit3, ran: true, code: 3},
		{name: "no tmux", terminal: true, team: &fakeAttacher{}, execErr: exec.ErrNotFound, ran: true, err: "attach to web: executable file not found in $PATH"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("TMUX", c.tmux)
			var out, errOut bytes.Buffer
			ios := iostreams.Test(nil, &out, &errOut)
			if c.terminal {
				ios, _ = terminalIO(t, &out, &errOut)
			}
			var opened string
			ran, hint := false, ""
			err := attachRun(context.Background(), &attachOptions{
				IO:     ios,
				Member: "web",
				Open: func(_ context.Context, m string) (string, attacher, error) {
					opened = m
					return "auth-fix", c.team, nil
				},
				Exec: func(_ context.Context, a *team.Attachment, message string) error {
					ran, hint = true, message
					return c.execErr
				},
			})
			var ee exitError
			switch {
			case c.code != 0:
				if !errors.As(err, &ee) || ee.code != c.code {
					t.Errorf("error %v, want exit code %d", err, c.code)
				}
			case c.err == "" && err != nil, c.err != "" && (err == nil || err.Error() != c.err):
				t.Errorf("error %v, want %q", err, c.err)
			}
			if opened != "web" || len(c.team.attached) != 1 || c.team.attached[0] != "web" {
				t.Errorf("opened the team of %q, attached %v", opened, c.team.attached)
			}
			if ran != c.ran || hint != c.hint {
				t.Errorf("ran %v with %q, want %v with %q", ran, hint, c.ran, c.hint)
			}
			if out.String() != "" || errOut.String() != c.errOut {
				t.Errorf("printed %q and %q, want nothing and %q", out.String(), errOut.String(), c.errOut)
			}
		})
	}
}
