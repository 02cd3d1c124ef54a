package main

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/teamctl/teamctl/internal/iostreams"
)

// TestNewCmdApprove: argv becomes the options (the member, --request,
// --team), and nothing is done but the run function.
func TestNewCmdApprove(t *testing.T) {
	var got *approveOptions
	g := &globals{}
	cmd := newApproveCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), g, func(_ context.Context, o *approveOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"researcher", "--request", "perm-123", "--team", "auth-fix"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Member != "researcher" || got.Request != "perm-123" || g.team != "auth-fix" {
		t.Fatalf("options %+v, team %q", got, g.team)
	}
	cmd.SetArgs([]string{})
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	if err := cmd.Execute(); err == nil {
		t.Error("approve without a member: no error")
	}
}

// fakePermissions is a team whose members' pending request is perm-1.
type fakePermissions struct {
	calls []string
	err   error
}

func (f *fakePermissions) Approve(_ context.Context, member, request string) (string, error) {
	f.calls = append(f.calls, "approve "+member+" "+request)
	return "perm-1", f.err
}

func (f *fakePermissions) Deny(_ context.Context, member, request, reason string) (string, error) {
	f.calls = append(f.calls, "deny "+member+" "+request+" "+reason)
	return "perm-1", f.err
}

// TestApproveRun: the member's request is approved in the team that has it,
// and the line names the request; an error is the team's, with nothing
// printed.
func TestApproveRun(t *testing.T) {
	for _, c := range []struct {
		name, want string
		err        error
	}{
		{"approved", "approved researcher's request perm-1\n", nil},
		{"no request", "", errors.New("researcher has no pending permission request")},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			var opened string
			f := &fakePermissions{err: c.err}
			err := approveRun(context.Background(), &approveOptions{
				IO:     iostreams.Test(nil, &out, new(bytes.Buffer)),
				Member: "researcher",
				Open: func(_ context.Context, m string) (approver, error) {
					opened = m
					return f, nil
				},
			})
			if !errors.Is(err, c.err) {
				t.Fatalf("error %v, want %v", err, c.err)
			}
			if opened != "researcher" || len(f.calls) != 1 || f.calls[0] != "approve researcher " {
				t.Errorf("opened the team of %q, called %q", opened, f.calls)
			}
			if out.String() != c.want {
				t.Errorf("printed %q, want %q", out.String(), c.want)
			}
		})
	}
}
