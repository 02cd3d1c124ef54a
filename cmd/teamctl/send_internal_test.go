package main

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

// TestNewCmdSend: argv becomes the options (the member, the text, --team),
// and nothing is done but the run function.
func TestNewCmdSend(t *testing.T) {
	var got *sendOptions
	g := &globals{}
	ios, _, _ := bufIO("")
	cmd := newSendCmd(ios, g, func(_ context.Context, o *sendOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"web", "look again", "--team", "auth-fix"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Member != "web" || got.Text != "look again" || g.team != "auth-fix" {
		t.Fatalf("options %+v, team %q", got, g.team)
	}
	got = nil
	cmd.SetArgs([]string{"web"})
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	if err := cmd.Execute(); err == nil || got != nil {
		t.Errorf("send without a text: %v, run %v", err, got != nil)
	}
}

// fakeSender is a team that takes what it is sent.
type fakeSender struct {
	sent []string
	err  error
}

func (f *fakeSender) Send(_ context.Context, member, text string) (string, error) {
	f.sent = append(f.sent, member+": "+text)
	return "typed into its pane", f.err
}

// TestSendRun: the text (or standard input's, without its last newlines)
// goes to the member of the team that has it, and the line says how; an
// error is the team's, with nothing printed.
func TestSendRun(t *testing.T) {
	for _, c := range []struct {
		name, text, stdin string
		team              *fakeSender
		sent, out, err    string
	}{
		{name: "the text", text: "look again", team: &fakeSender{}, sent: "lead: look again", out: "sent to lead: typed into its pane\n"},
		{name: "standard input", text: "-", stdin: "a diff\nof two lines\n\n", team: &fakeSender{}, sent: "lead: a diff\nof two lines", out: "sent to lead: typed into its pane\n"},
		{name: "refused", text: "x", team: &fakeSender{err: errors.New("lead is busy")}, sent: "lead: x", err: "lead is busy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ios, out, _ := bufIO(c.stdin)
			var opened string
			err := sendRun(context.Background(), &sendOptions{IO: ios, Member: "lead", Text: c.text,
				Open: func(_ context.Context, m string) (sender, error) {
					opened = m
					return c.team, nil
				}})
			if c.err != "" && (err == nil || err.Error() != c.err) || c.err == "" && err != nil {
				t.Fatalf("error %v, want %q", err, c.err)
			}
			if opened != "lead" || len(c.team.sent) != 1 || c.team.sent[0] != c.sent {
				t.Errorf("opened the team of %q, sent %q; want %q", opened, c.team.sent, c.sent)
			}
			if out.String() != c.out {
				t.Errorf("printed %q, want %q", out.String(), c.out)
			}
		})
	}
	// No team: nothing is read or sent.
	ios, out, _ := bufIO("unread")
	err := sendRun(context.Background(), &sendOptions{IO: ios, Member: "lead", Text: "-",
		Open: func(context.Context, string) (sender, error) { return nil, errors.New("no team is up") }})
	if err == nil || err.Error() != "no team is up" || out.Len() != 0 || ios.In.(interface{ Len() int }).Len() != len("unread") {
		t.Errorf("without a team: %v, printed %q", err, out.String())
	}
}
