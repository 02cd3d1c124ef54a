package main

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestNewCmdStandIn: the stand-in's argv is Claude Code's, passed whole
// (flags cobra does not know included); only --help before "--" is
// teamctl's, and prints help without running it.
func TestNewCmdStandIn(t *testing.T) {
	for _, c := range []struct {
		args []string
		run  bool
	}{
		{args: []string{"--session-id", "0b6c", "--teammate-mode", "tmux", "--", "Coordinate."}, run: true},
		{args: []string{"--", "--help"}, run: true},
		{args: []string{"--model", "x", "--help"}},
		{args: []string{"-h"}},
	} {
		var got *standInOptions
		ios, _, _ := bufIO("")
		cmd := newStandInCmd(ios, func(_ context.Context, o *standInOptions) error {
			got = o
			return nil
		})
		var help bytes.Buffer
		cmd.SetArgs(c.args)
		cmd.SetOut(&help)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		if c.run && (got == nil || !slices.Equal(got.Args, c.args) || help.Len() != 0) {
			t.Errorf("%q: options %+v, help %q", c.args, got, help.String())
		}
		if !c.run && (got != nil || !strings.Contains(help.String(), "A stand-in for Claude Code")) {
			t.Errorf("%q: run %v, help %q", c.args, got != nil, help.String())
		}
	}
}

// TestStandInRun: the stand-in runs on the command's streams with its
// argv, and its exit code is the command's.
func TestStandInRun(t *testing.T) {
	for _, code := range []int{0, 3} {
		ios, out, _ := bufIO("typed")
		var args []string
		err := standInRun(context.Background(), &standInOptions{IO: ios, Args: []string{"--print"},
			Main: func(a []string, stdin io.Reader, stdout io.Writer) int {
				args = a
				in, _ := io.ReadAll(stdin)
				io.WriteString(stdout, "read "+string(in))
				return code
			}})
		if code == 0 && err != nil || code != 0 && err != (exitError{code}) {
			t.Errorf("exit %d: error %v", code, err)
		}
		if !slices.Equal(args, []string{"--print"}) || out.String() != "read typed" {
			t.Errorf("ran with %q, printed %q", args, out.String())
		}
	}
}
