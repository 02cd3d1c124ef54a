package main

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/iostreams"
)

// TestNewCmdInbox: argv becomes the options (the member, --json, --team),
// and nothing is done but the run function.
func TestNewCmdInbox(t *testing.T) {
	var got *inboxOptions
	g := &globals{}
	cmd := newInboxCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), g, func(_ context.Context, o *inboxOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"researcher", "--json", "--team", "auth-fix"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Member != "researcher" || !got.JSON || g.team != "auth-fix" {
		t.Fatalf("options %+v, team %q", got, g.team)
	}
	cmd.SetArgs([]string{})
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	if err := cmd.Execute(); err == nil {
		t.Error("inbox without a member: no error")
	}
}

// fakeInbox is a team whose members' mailbox holds msgs.
type fakeInbox struct {
	read []string
	msgs []claudecode.Message
	err  error
}

func (f *fakeInbox) Inbox(member string) ([]claudecode.Message, error) {
	f.read = append(f.read, member)
	return f.msgs, f.err
}

// TestInboxRun: the mailbox of the member, in the team that has it, as a
// table, or as JSON ([] when empty); an empty one says so; an error is the
// team's, with nothing printed.
func TestInboxRun(t *testing.T) {
	at := time.Date(2026, 3, 4, 9, 41, 7, 0, time.UTC)
	msg := claudecode.Message{From: "mate", Text: "Found it", Timestamp: claudecode.Timestamp(at), Read: true}
	for _, c := range []struct {
		name string
		json bool
		team *fakeInbox
		want string
		err  bool
	}{
		{name: "table", team: &fakeInbox{msgs: []claudecode.Message{msg}},
			want: "TIME                 FROM  READ  MESSAGE\n" + at.Local().Format(time.DateTime) + "  mate  yes   Found it\n"},
		{name: "empty", team: &fakeInbox{}, want: "no messages for researcher\n"},
		{name: "json", json: true, team: &fakeInbox{msgs: []claudecode.Message{msg}}, want: `[
  {
    "from": "mate",
    "text": "Found it",
    "timestamp": "2026-03-04T09:41:07.000Z",
    "read": true
  }
]
`},
		{name: "json empty", json: true, team: &fakeInbox{}, want: "[]\n"},
		{name: "unreadable", team: &fakeInbox{err: errors.New("inbox of researcher: too large")}, err: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			var opened string
			err := inboxRun(context.Background(), &inboxOptions{
				IO:     iostreams.Test(nil, &out, new(bytes.Buffer)),
				Member: "researcher",
				JSON:   c.json,
				Open: func(_ context.Context, m string) (inboxReader, error) {
					opened = m
					return c.team, nil
				},
			})
			if (err != nil) != c.err {
				t.Fatalf("error %v", err)
			}
			if opened != "researcher" || len(c.team.read) != 1 || c.team.read[0] != "researcher" {
				t.Errorf("opened the team of %q, read %q", opened, c.team.read)
			}
			if out.String() != c.want {
				t.Errorf("printed\n%s\nwant\n%s", out.String(), c.want)
			}
		})
	}
}
