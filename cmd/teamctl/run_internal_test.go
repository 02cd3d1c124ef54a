package main

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/teamctl/teamctl/ptywatch"
	"github.com/teamctl/teamctl/stallwatch"
)

// TestNewCmdRun: argv becomes the options (the command, --quiet-period or
// its old name --quiet, --layout), and nothing is done but the run function.
func TestNewCmdRun(t *testing.T) {
	for _, c := range []struct {
		args               []string
		argv               []string
		quiet              time.Duration
		quietSet, oldQuiet bool
		layout             string
	}{
		{args: []string{"--", "npm", "install"}, argv: []string{"npm", "install"}, quiet: 2 * time.Second},
		{args: []string{"--quiet-period", "5s", "--layout", "l.yaml", "--", "./deploy.sh", "-x"}, argv: []string{"./deploy.sh", "-x"},
			quiet: 5 * time.Second, quietSet: true, layout: "l.yaml"},
		{args: []string{"--quiet", "1s", "--", "sh"}, argv: []string{"sh"}, quiet: time.Second, quietSet: true, oldQuiet: true},
	} {
		var got *runOptions
		ios, _, _ := bufIO("")
		cmd := newRunCmd(ios, func(_ context.Context, o *runOptions) error {
			got = o
			return nil
		})
		cmd.SetArgs(c.args)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		if got == nil || !slices.Equal(got.Argv, c.argv) || got.Quiet != c.quiet || got.QuietSet != c.quietSet || got.OldQuiet != c.oldQuiet || got.Layout != c.layout {
			t.Errorf("%q: options %+v", c.args, got)
		}
	}
	ios, _, _ := bufIO("")
	cmd := newRunCmd(ios, func(context.Context, *runOptions) error { t.Error("run without a command"); return nil })
	cmd.SetArgs(nil)
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	if err := cmd.Execute(); err == nil {
		t.Error("run without a command: no error")
	}
}

// TestRunRun: the command is watched with the options given, each stall
// and each notify command that failed said on stderr; its exit code is
// run's; --quiet is said to be --quiet-period now.
func TestRunRun(t *testing.T) {
	for _, c := range []struct {
		name     string
		oldQuiet bool
		code     int
		err      error
		errOut   string
	}{
		{name: "a stall, and its notify command failed", code: 0,
			errOut: "\nteamctl run: ./deploy.sh is waiting for input: Continue?\\x1b[2J (y/n) (pattern yes-no)\n" +
				"teamctl run: notify command notify-send: exit status 1: no display\n"},
		{name: "the command's exit code", code: 3, errOut: "\nteamctl run: ./deploy.sh is waiting for input: Continue?\\x1b[2J (y/n) (pattern yes-no)\n" +
			"teamctl run: notify command notify-send: exit status 1: no display\n"},
		{name: "--quiet", oldQuiet: true, errOut: "teamctl run: --quiet is now --quiet-period (--quiet still works, for now)\n" +
			"\nteamctl run: ./deploy.sh is waiting for input: Continue?\\x1b[2J (y/n) (pattern yes-no)\n" +
			"teamctl run: notify command notify-send: exit status 1: no display\n"},
		{name: "it could not run", code: -1, err: errors.New("run ./deploy.sh: no pty"),
			errOut: "\nteamctl run: ./deploy.sh is waiting for input: Continue?\\x1b[2J (y/n) (pattern yes-no)\n" +
				"teamctl run: notify command notify-send: exit status 1: no display\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ios, out, errOut := bufIO("typed")
			var watched []string
			var got ptywatch.WatchOptions
			err := runRun(context.Background(), &runOptions{IO: ios, Argv: []string{"./deploy.sh", "-x"}, Quiet: 5 * time.Second, QuietSet: true,
				OldQuiet: c.oldQuiet, Layout: "l.yaml", Cols: 100, Rows: 30,
				Watch: func(_ context.Context, argv []string, o ptywatch.WatchOptions) (int, error) {
					watched, got = argv, o
					o.OnStall(stallwatch.Verdict{Line: "Continue?\x1b[2J (y/n)", Pattern: "yes-no"})
					o.OnNotifyError("notify-send", errors.New("exit status 1: no display"))
					return c.code, c.err
				}})
			switch {
			case c.err != nil:
				if !errors.Is(err, c.err) {
					t.Errorf("error %v, want %v", err, c.err)
				}
			case c.code != 0:
				if err != (exitError{c.code}) {
					t.Errorf("error %v, want exit %d", err, c.code)
				}
			case err != nil:
				t.Errorf("error %v", err)
			}
			if !slices.Equal(watched, []string{"./deploy.sh", "-x"}) || got.Quiet != 5*time.Second || !got.QuietSet || got.Layout != "l.yaml" ||
				got.Cols != 100 || got.Rows != 30 || got.Stdin != ios.In || got.Stdout != ios.Out {
				t.Errorf("watched %q with %+v", watched, got)
			}
			if out.Len() != 0 || errOut.String() != c.errOut {
				t.Errorf("printed %q, on stderr:\n%q\nwant:\n%q", out.String(), errOut.String(), c.errOut)
			}
		})
	}
}
