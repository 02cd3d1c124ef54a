package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/team"
)

func (f *fakeLander) Running(_ context.Context, members []string, all bool) ([]string, error) {
	return f.running, nil
}

func (f *fakeLander) Stop(_ context.Context, member string, _ time.Duration) (*team.StopResult, error) {
	f.stopped = append(f.stopped, member)
	return &team.StopResult{Member: member}, nil
}

// TestFinishStopsARunningMember: finish of a member that runs stops it
// first (as teamctl stop) once the person said y, or with --yes; n stops
// and finishes nothing (exit 1); with no terminal and no --yes it is
// refused, saying --yes. It was refused always: "bring the team down first".
func TestFinishStopsARunningMember(t *testing.T) {
	run := func(in string, tty, yes bool) (*fakeLander, string, error) {
		f := &fakeLander{running: []string{"alice"}, done: &team.FinishResult{Team: "t"}}
		var errOut bytes.Buffer
		ios := iostreams.Test(strings.NewReader(in), new(bytes.Buffer), &errOut)
		opts := &finishOptions{IO: ios, Members: []string{"alice"}, Yes: yes,
			Open: func(context.Context, string) (finisher, error) { return f, nil }}
		if tty { // a person at a terminal, answering in
			opts.Ask = func(ctx context.Context, q string) (bool, error) { return confirm(ctx, ios, q) }
		}
		err := finishRun(context.Background(), opts)
		return f, errOut.String(), err
	}
	f, said, err := run("y\n", true, false)
	if err != nil || strings.Join(f.stopped, " ") != "alice" || strings.Join(f.members, " ") != "alice" ||
		!strings.Contains(said, "alice still running: stop it first (as teamctl stop does)? [y/N] ") || !strings.Contains(said, "stopped alice") {
		t.Errorf("y: %v, stopped %q, finished %q, said %q", err, f.stopped, f.members, said)
	}
	f, _, err = run("n\n", true, false)
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 || len(f.stopped) != 0 || f.members != nil {
		t.Errorf("n: %v, stopped %q, finished %q", err, f.stopped, f.members)
	}
	f, _, err = run("", false, true)
	if err != nil || strings.Join(f.stopped, " ") != "alice" || strings.Join(f.members, " ") != "alice" {
		t.Errorf("--yes: %v, stopped %q, finished %q", err, f.stopped, f.members)
	}
	f, _, err = run("", false, false)
	if err == nil || !strings.Contains(err.Error(), "--yes stops it first") || len(f.stopped) != 0 || f.members != nil {
		t.Errorf("no terminal, no --yes: %v, stopped %q, finished %q", err, f.stopped, f.members)
	}
}
