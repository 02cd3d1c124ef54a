package main

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/state"
)

// TestNewCmdResumeMember: argv becomes the options (the member, --team), and
// nothing is done but the run function; a member is required.
func TestNewCmdResumeMember(t *testing.T) {
	var got *resumeMemberOptions
	g := &globals{}
	cmd := newResumeMemberCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), g, func(_ context.Context, o *resumeMemberOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"researcher", "--team", "auth-fix"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Member != "researcher" || g.team != "auth-fix" {
		t.Fatalf("options %+v, team %q", got, g.team)
	}
	cmd.SetArgs([]string{})
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	if err := cmd.Execute(); err == nil {
		t.Error("resume-member without a member: no error")
	}
}

type fakeReleaser struct {
	hold  state.Hold
	err   error
	calls []string
}

func (f *fakeReleaser) Release(_ context.Context, member string) (state.Hold, error) {
	f.calls = append(f.calls, member)
	return f.hold, f.err
}

// TestResumeMemberRun: the member is released in the team that has it, and
// the line says why it was held and what follows; an error is the team's.
func TestResumeMemberRun(t *testing.T) {
	since := time.Date(2026, 12, 1, 9, 30, 0, 0, time.Local)
	for _, c := range []struct {
		name, want string
		hold       state.Hold
		err        error
	}{
		{"interrupted", "released lead, held since 09:30:00 (budget: lead has spent its $5.00 budget: $5.10; interrupted): it may be typed into again\n",
			state.Hold{Since: since, Reason: "budget: lead has spent its $5.00 budget: $5.10; interrupted"}, nil},
		{"stopped", "released lead, held since 09:30:00 (budget: x; stopped): it is started again, its conversation resumed\n",
			state.Hold{Since: since, Reason: "budget: x; stopped", Stopped: true}, nil},
		{"not held", "", state.Hold{}, errors.New("lead is not held")},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			f := &fakeReleaser{hold: c.hold, err: c.err}
			err := resumeMemberRun(context.Background(), &resumeMemberOptions{
				IO: iostreams.Test(nil, &out, new(bytes.Buffer)), Member: "lead",
				Open: func(context.Context, string) (releaser, error) { return f, nil },
			})
			if !errors.Is(err, c.err) {
				t.Fatalf("error %v, want %v", err, c.err)
			}
			if out.String() != c.want || len(f.calls) != 1 || f.calls[0] != "lead" {
				t.Errorf("printed %q, calls %q; want %q", out.String(), f.calls, c.want)
			}
		})
	}
}
