package main

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/team"
)

// TestNewCmdAnswer: argv becomes the member and the one answer (a reply,
// --option or --keys), with --force and --team; arguments that do not make
// one answer are refused as a usage error, and nothing is done but the run
// function.
func TestNewCmdAnswer(t *testing.T) {
	for _, c := range []struct {
		args []string
		want team.Answer
		err  string
	}{
		{[]string{"lead", "n"}, team.Answer{Reply: "n"}, ""},
		{[]string{"lead", "2", "--force"}, team.Answer{Reply: "2", Force: true}, ""},
		{[]string{"lead", "--option", "Yes, I trust this folder"}, team.Answer{Option: "Yes, I trust this folder"}, ""},
		{[]string{"lead", "--keys", "Down", "Enter"}, team.Answer{Keys: []string{"Down", "Enter"}}, ""},
		{[]string{}, team.Answer{}, "which member? teamctl answer MEMBER y|n|N"},
		{[]string{"lead"}, team.Answer{}, "what answer? y, n or an option's number (or --option TEXT, or --keys KEY...)"},
		{[]string{"lead", "--keys"}, team.Answer{}, "--keys needs the keys to send after MEMBER"},
		{[]string{"lead", "--keys", "y", "--option", "Yes"}, team.Answer{}, "--keys and --option do not go together"},
		{[]string{"lead", "y", "--option", "Yes"}, team.Answer{}, "--option is the answer: give nothing after MEMBER"},
		{[]string{"lead", "hello world", "Enter"}, team.Answer{}, "one answer: y, n or an option's number; to send keys as they are: teamctl answer lead --keys 'hello world' Enter"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var got *answerOptions
			g := &globals{}
			cmd := newAnswerCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), g, func(_ context.Context, o *answerOptions) error {
				got = o
				return nil
			})
			cmd.SetArgs(append(c.args, "--team", "auth-fix"))
			cmd.SetOut(new(bytes.Buffer))
			cmd.SetErr(new(bytes.Buffer))
			err := cmd.Execute()
			var ue *usageError
			switch {
			case c.err != "":
				if !errors.As(err, &ue) || err.Error() != c.err || got != nil {
					t.Fatalf("error %v (a usage error: %v), run: %v; want %q", err, ue != nil, got != nil, c.err)
				}
			case err != nil:
				t.Fatal(err)
			case got.Member != "lead" || g.team != "auth-fix" || got.Answer.Reply != c.want.Reply || got.Answer.Option != c.want.Option ||
				!slices.Equal(got.Answer.Keys, c.want.Keys) || got.Answer.Force != c.want.Force:
				t.Errorf("options %+v, team %q; want the answer %+v", got, g.team, c.want)
			}
		})
	}
}

// fakeAnswerer is a team whose members answer with got.
type fakeAnswerer struct {
	answered []team.Answer
	got      *team.Answered
	err      error
}

func (f *fakeAnswerer) Answer(_ context.Context, member string, a team.Answer) (*team.Answered, error) {
	if member != "lead" {
		return nil, errors.New("asked about " + member)
	}
	f.answered = append(f.answered, a)
	return f.got, f.err
}

// TestAnswerRun: the answer goes to the member in the team that has it; the
// line says the option chosen and the keys sent, as they are typed; keys sent
// but not recorded are a success with a warning; any other error is the
// team's, with nothing printed.
func TestAnswerRun(t *testing.T) {
	recordErr := &team.NotRecordedError{Err: errors.New("read-only file system")}
	for _, c := range []struct {
		name, out, errOut string
		team              *fakeAnswerer
		wantErr           bool
	}{
		{"option", `chose "4. No" for lead (sent 4)` + "\n", "",
			&fakeAnswerer{got: &team.Answered{Keys: []string{"4"}, Option: "4. No"}}, false},
		{"keys", "sent 'hello world' Enter to lead\n", "",
			&fakeAnswerer{got: &team.Answered{Keys: []string{"hello world", "Enter"}}}, false},
		{"not recorded", "sent y Enter to lead\n", "teamctl: warning: the keys were sent, but could not be recorded in the team's events: read-only file system\n",
			&fakeAnswerer{got: &team.Answered{Keys: []string{"y", "Enter"}}, err: recordErr}, false},
		{"not stalled", "", "", &fakeAnswerer{err: errors.New("lead is not stalled")}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			var opened string
			err := answerRun(context.Background(), &answerOptions{
				IO:     iostreams.Test(nil, &out, &errOut),
				Member: "lead",
				Answer: team.Answer{Reply: "n"},
				Open: func(_ context.Context, m string) (answerer, error) {
					opened = m
					return c.team, nil
				},
			})
			if (err != nil) != c.wantErr {
				t.Fatalf("error %v", err)
			}
			if opened != "lead" || len(c.team.answered) != 1 || c.team.answered[0].Reply != "n" {
				t.Errorf("opened the team of %q, answered %+v", opened, c.team.answered)
			}
			if out.String() != c.out || errOut.String() != c.errOut {
				t.Errorf("printed %q and %q, want %q and %q", out.String(), errOut.String(), c.out, c.errOut)
			}
		})
	}
}
