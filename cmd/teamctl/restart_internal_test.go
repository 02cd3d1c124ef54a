package main

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/state"
)

// TestNewCmdRestart: argv becomes the options (the member, --team), and
// nothing is done but the run function.
func TestNewCmdRestart(t *testing.T) {
	var got *restartOptions
	g := &globals{}
	cmd := newRestartCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), g, func(_ context.Context, o *restartOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"web", "--team", "auth-fix"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Member != "web" || g.team != "auth-fix" {
		t.Fatalf("options %+v, team %q", got, g.team)
	}
	cmd.SetArgs([]string{})
	if err := cmd.Execute(); err == nil {
		t.Error("restart without a member: no error")
	}
}

// fakeRestarter is a team whose member restarts with pid 42.
type fakeRestarter struct {
	restarted []string
	err       error
	st        *state.Team
}

func (f *fakeRestarter) Restart(_ context.Context, m string) (int, error) {
	f.restarted = append(f.restarted, m)
	return 42, f.err
}

func (f *fakeRestarter) State() (*state.Team, error) {
	if f.st == nil {
		return nil, errors.New("no state")
	}
	return f.st, nil
}

// TestRestartRun: the member is restarted in the team that has it, and the
// line says its pid and how many restarts it has had; an error is the
// team's, with nothing printed.
func TestRestartRun(t *testing.T) {
	for _, c := range []struct {
		name, want string
		team       *fakeRestarter
		wantErr    bool
	}{
		{"counted", "restarted web (pid 42): restart #3 (by a person)\n",
			&fakeRestarter{st: &state.Team{Members: []state.Member{{Name: "web", Restarts: 3}}}}, false},
		{"state unreadable", "restarted web (pid 42)\n", &fakeRestarter{}, false},
		{"refused", "", &fakeRestarter{err: errors.New("web: the layout no longer gives its launch")}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			var opened string
			err := restartRun(context.Background(), &restartOptions{
				IO:     iostreams.Test(nil, &out, new(bytes.Buffer)),
				Member: "web",
				Open: func(_ context.Context, m string) (restarter, error) {
					opened = m
					return c.team, nil
				},
			})
			if (err != nil) != c.wantErr {
				t.Fatalf("error %v", err)
			}
			if opened != "web" || len(c.team.restarted) != 1 || c.team.restarted[0] != "web" {
				t.Errorf("opened the team of %q, restarted %v", opened, c.team.restarted)
			}
			if out.String() != c.want {
				t.Errorf("printed %q, want %q", out.String(), c.want)
			}
		})
	}
}
