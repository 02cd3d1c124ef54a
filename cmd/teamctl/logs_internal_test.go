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
		case got.Member != "web" || got.Logs != c.want || (g.team == "auth-fix") != (len(c.args) > 3):
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
