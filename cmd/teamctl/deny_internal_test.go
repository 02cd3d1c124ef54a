package main

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/teamctl/teamctl/internal/iostreams"
)

// TestNewCmdDeny: argv becomes the options (the member, --request,
// --reason, --team), and nothing is done but the run function.
func TestNewCmdDeny(t *testing.T) {
	var got *denyOptions
	g := &globals{}
	cmd := newDenyCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), g, func(_ context.Context, o *denyOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"researcher", "--request", "perm-123", "--reason", "use the test database", "--team", "auth-fix"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Member != "researcher" || got.Request != "perm-123" || got.Reason != "use the test database" || g.team != "auth-fix" {
		t.Fatalf("options %+v, team %q", got, g.team)
	}
	cmd.SetArgs([]string{"researcher", "lead"})
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	if err := cmd.Execute(); err == nil {
		t.Error("deny of two members: no error")
	}
}

// TestDenyRun: the member's request is refused with the reason in the team
// that has it, and the line names the request; an error is the team's, with
// nothing printed.
func TestDenyRun(t *testing.T) {
	for _, c := range []struct {
		name, want string
		err        error
	}{
		{"denied", "denied researcher's request perm-1\n", nil},
		{"no request", "", errors.New("researcher has no pending permission request")},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			var opened string
			f := &fakePermissions{err: c.err}
			err := denyRun(context.Background(), &denyOptions{
				IO:      iostreams.Test(nil, &out, new(bytes.Buffer)),
				Member:  "researcher",
				Request: "perm-7",
				Reason:  "not now",
				Open: func(_ context.Context, m string) (denier, error) {
					opened = m
					return f, nil
				},
			})
			if !errors.Is(err, c.err) {
				t.Fatalf("error %v, want %v", err, c.err)
			}
			if opened != "researcher" || len(f.calls) != 1 || f.calls[0] != "deny researcher perm-7 not now" {
				t.Errorf("opened the team of %q, called %q", opened, f.calls)
			}
			if out.String() != c.want {
				t.Errorf("printed %q, want %q", out.String(), c.want)
			}
		})
	}
}
