package main

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/team"
)

// TestNewCmdLogs: argv becomes the options (the member, -n, -f, --team), the
// last 100 lines by default; a negative -n is a usage error, and nothing is
// done but the run function.
func TestNewCmdLogs(t *testing.T) {
	for _, c := range []struct {
		args []string
		want team.LogsOptions
		err  string
	}{
		{[]string{"web"}, team.LogsOptions{Lines: 100}, ""},
		{[]string{"web", "-n", "20", "-f", "--team", "auth-fix"}, team.LogsOptions{Lines: 20, Follow: true}, ""},
		{[]string{"web", "--lines", "0"}, team.LogsOptions{Lines: 0}, ""},
		{[]string{"web", "-n", "-1"}, team.LogsOptions{}, "-n -1: want a number of lines, 0 or more"},
		{[]string{}, team.LogsOptions{Lines: 100}, ""},
		{[]string{"-f"}, team.LogsOptions{Lines: 100, Follow: true}, ""},
	} {
		var got *logsOptions
		g := &globals{}
		cmd := newLogsCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), g, func(_ context.Context, o *logsOptions) error {
			got = o
			return nil
		})
		cmd.SetArgs(c.args)
		cmd.SetOut(new(bytes.Buffer))
		cmd.SetErr(new(bytes.Buffer))
		err := cmd.Execute()
		var ue *usageError
		switch {
		case c.err != "":
			if !errors.As(err, &ue) || err.Error() != c.err || got != nil {
				t.Errorf("%q: error %v, run: %v; want the usage error %q", c.args, err, got != nil, c.err)
			}
		case err != nil:
			t.Errorf("%q: %v", c.args, err)
		case got.Member != map[bool]string{true: "web", false: ""}[len(c.args) > 0 && c.args[0] == "web"] || got.Logs != c.want || (g.team == "auth-fix") != (len(c.args) > 3):
			t.Errorf("%q: options %+v, team %q", c.args, got, g.team)
		}
	}
}

// fakeLogger is a team whose members printed lines.
type fakeLogger struct {
	asked []team.LogsOptions
	lines []string
	err   error
}

func (f *fakeLogger) Logs(_ context.Context, member string, o team.LogsOptions, print func(string)) error {
	if member != "web" {
		return errors.New("asked about " + member)
	}
	f.asked = append(f.asked, o)
	for _, l := range f.lines {
		print(l)
	}
	return f.err
}

func (f *fakeLogger) LogsAll(_ context.Context, o team.LogsOptions, out team.LogsAllOutput) error {
	f.asked = append(f.asked, o)
	out.Members([]string{"lead", "web"})
	out.Line("web", "listening on :8080")
	out.Problem(errors.New("lead's pane is gone"))
	out.Line("lead", "\x1b[2Jthinking")
	return f.err
}

// TestLogsRunEveryMember (issue 31: logs without a member was a usage
// error): every member's lines, each after its name padded to the longest
// and " | ", as docker compose logs prints them; the names coloured only
// when iostreams says colour is on; what kept a member from showing
// anything said on stderr.
func TestLogsRunEveryMember(t *testing.T) {
	for _, c := range []struct {
		name, want string
		io         func(out, errOut *bytes.Buffer) *iostreams.IO
	}{
		{"piped", "web  | listening on :8080\nlead | \\x1b[2Jthinking\n",
			func(out, errOut *bytes.Buffer) *iostreams.IO { return iostreams.Test(nil, out, errOut) }},
		{"a terminal without colour", "web  | listening on :8080\nlead | \\x1b[2Jthinking\n",
			func(out, errOut *bytes.Buffer) *iostreams.IO { return iostreams.Terminal(nil, out, errOut, 80, false) }},
		{"a terminal", "\x1b[33mweb \x1b[0m | listening on :8080\n\x1b[36mlead\x1b[0m | \\x1b[2Jthinking\n",
			func(out, errOut *bytes.Buffer) *iostreams.IO { return iostreams.Terminal(nil, out, errOut, 80, true) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			f := &fakeLogger{}
			o := team.LogsOptions{Lines: 100, Follow: true}
			err := logsRun(context.Background(), &logsOptions{IO: c.io(&out, &errOut), Logs: o,
				Open: func(context.Context) (logger, error) { return f, nil }})
			if err != nil || len(f.asked) != 1 || f.asked[0] != o {
				t.Fatalf("error %v, asked %+v", err, f.asked)
			}
			if out.String() != c.want {
				t.Errorf("printed %q, want %q", out.String(), c.want)
			}
			if errOut.String() != "teamctl: lead's pane is gone\n" {
				t.Errorf("stderr %q", errOut.String())
			}
		})
	}
}

// TestLogsRun: the member's lines, as the options ask, each made visible on
// a line of its own; an error is the team's, after what was printed.
func TestLogsRun(t *testing.T) {
	for _, c := range []struct {
		name, want string
		team       *fakeLogger
	}{
		{"lines", "--- previous run (exit 3, ended 09:41:07) ---\nok\\tgo test \\x1b[2J\n",
			&fakeLogger{lines: []string{"--- previous run (exit 3, ended 09:41:07) ---", "ok\tgo test \x1b[2J"}}},
		{"pane gone", "last line\n", &fakeLogger{lines: []string{"last line"}, err: errors.New("web's pane is gone")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			o := team.LogsOptions{Lines: 20, Follow: true}
			err := logsRun(context.Background(), &logsOptions{
				IO:     iostreams.Test(nil, &out, new(bytes.Buffer)),
				Member: "web",
				Logs:   o,
				Open:   func(context.Context) (logger, error) { return c.team, nil },
			})
			if !errors.Is(err, c.team.err) {
				t.Fatalf("error %v, want %v", err, c.team.err)
			}
			if len(c.team.asked) != 1 || c.team.asked[0] != o {
				t.Errorf("asked %+v, want %+v", c.team.asked, o)
			}
			if out.String() != c.want {
				t.Errorf("printed %q, want %q", out.String(), c.want)
			}
		})
	}
}
