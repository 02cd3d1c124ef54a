package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/team"
)

// TestNewCmdDown: argv becomes the options (--timeout, --now, --team), 10s
// by default, and nothing is done but the run function.
func TestNewCmdDown(t *testing.T) {
	for _, c := range []struct {
		args    []string
		timeout time.Duration
		now     bool
	}{
		{nil, 10 * time.Second, false},
		{[]string{"--timeout", "30s", "--now", "--team", "auth-fix"}, 30 * time.Second, true},
	} {
		var got *downOptions
		g := &globals{}
		cmd := newDownCmd(iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer)), g, func(_ context.Context, o *downOptions) error {
			got = o
			return nil
		})
		cmd.SetArgs(c.args)
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		if got == nil || got.Timeout != c.timeout || got.Now != c.now || (g.team == "auth-fix") != (len(c.args) > 0) {
			t.Errorf("%q: options %+v, team %q", c.args, got, g.team)
		}
	}
}

// fakeDowner is a team that goes down with res and err, printing its
// progress.
type fakeDowner struct {
	asked []team.DownOptions
	res   *team.DownResult
	err   error
}

func (f *fakeDowner) Down(_ context.Context, o team.DownOptions) (*team.DownResult, error) {
	f.asked = append(f.asked, o)
	fmt.Fprintln(o.Progress, "stopping \x1b[2Jweb")
	return f.res, f.err
}

// TestDownRun: the team goes down with the grace period asked for, its
// progress made visible on stderr, and the line says how its members ended;
// no team up, or one already down, is nothing to do; a down that did not
// finish says what it did and is the error.
func TestDownRun(t *testing.T) {
	const progress = "stopping \\x1b[2Jweb\n"
	since := time.Date(2026, 3, 4, 9, 41, 7, 0, time.UTC)
	for _, c := range []struct {
		name, out, errOut, err string
		openErr                error
		team                   *fakeDowner
	}{
		{name: "down", out: "team auth-fix is down: 3 stopped\n", errOut: progress,
			team: &fakeDowner{res: &team.DownResult{Terminated: []string{"lead", "web", "db"}}}},
		{name: "every way", errOut: progress + "teamctl: warning: could not record the stop: read-only file system\n",
			out: "team auth-fix is down: 3 stopped (web, db approved the shutdown request), 1 killed after 30s, 2 stray process(es) ended\n",
			team: &fakeDowner{res: &team.DownResult{Terminated: []string{"lead", "web", "db"}, ShutDown: []string{"web", "db"},
				Killed: []string{"lead"}, Strays: []int{7, 8}, Warnings: []string{"could not record the stop: read-only file system"}}}},
		{name: "already down", out: "team auth-fix is already down (since " + since.Local().Format(time.DateTime) + "); nothing to stop\n", errOut: progress,
			team: &fakeDowner{res: &team.DownResult{AlreadyDown: true, StoppedAt: since}}},
		{name: "unfinished", out: "team auth-fix: 1 stopped\n", errOut: progress, err: "down auth-fix: kill-server: no such file",
			team: &fakeDowner{res: &team.DownResult{Terminated: []string{"web"}}, err: errors.New("kill-server: no such file")}},
		{name: "failed", errOut: progress, err: "down auth-fix: state.json: permission denied",
			team: &fakeDowner{err: errors.New("state.json: permission denied")}},
		{name: "nothing up", out: "no team is up; nothing to stop\n", openErr: team.ErrNoTeamUp},
		{name: "no such team", err: "no team named nosuch", openErr: errors.New("no team named nosuch")},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := downRun(context.Background(), &downOptions{
				IO:      iostreams.Test(nil, &out, &errOut),
				Timeout: 30 * time.Second,
				Now:     true,
				Open: func(context.Context) (string, downer, error) {
					if c.openErr != nil {
						return "", nil, c.openErr
					}
					return "auth-fix", c.team, nil
				},
			})
			if c.err == "" && err != nil || c.err != "" && (err == nil || err.Error() != c.err) {
				t.Errorf("error %v, want %q", err, c.err)
			}
			if c.team != nil && (len(c.team.asked) != 1 || c.team.asked[0].Timeout != 30*time.Second || !c.team.asked[0].Now) {
				t.Errorf("down with %+v", c.team.asked)
			}
			if out.String() != c.out || errOut.String() != c.errOut {
				t.Errorf("printed %q and %q, want %q and %q", out.String(), errOut.String(), c.out, c.errOut)
			}
		})
	}
}
