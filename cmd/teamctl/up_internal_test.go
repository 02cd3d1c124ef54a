package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team"
)

// TestNewCmdUp: argv becomes the options (the layout, or the folder's own
// said on stderr unless -q; every flag), and nothing is done but the run
// function; flags that do not go together are usage errors.
func TestNewCmdUp(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("teamctl.yaml", []byte("team: here\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TEAMCTL_CLAUDE", "/opt/claude")
	for _, c := range []struct {
		args   []string
		want   upOptions
		errOut string
		err    string
	}{
		{args: []string{"l.yaml"}, want: upOptions{layout: "l.yaml", configWait: 5 * time.Second}},
		{args: nil, want: upOptions{layout: "teamctl.yaml", configWait: 5 * time.Second}, errOut: "using teamctl.yaml\n"},
		{args: []string{"-q"}, want: upOptions{layout: "teamctl.yaml", configWait: 5 * time.Second, quiet: true}},
		{args: []string{"l.yaml", "--recreate", "--layout-change", "--config-wait", "1s", "--foreground", "--fresh"},
			want: upOptions{layout: "l.yaml", recreate: true, changeFile: true, configWait: time.Second, foreground: true, fresh: true}},
		{args: []string{"l.yaml", "--resume"}, want: upOptions{layout: "l.yaml", configWait: 5 * time.Second, resume: true}},
		{args: []string{"--all", "--fresh", "--resume"}, want: upOptions{all: true, configWait: 5 * time.Second, fresh: true, resume: true}},
		{args: []string{"--all", "l.yaml"}, err: "--all brings back every lost team from its own layout: give no LAYOUT with it"},
		{args: []string{"l.yaml", "--fresh", "--resume"}, err: "--fresh and --resume do not go together"},
		{args: []string{"a.yaml", "b.yaml"}, err: "accepts at most 1 arg(s), received 2"},
	} {
		var got *upOptions
		ios, _, errOut := bufIO("")
		cmd := newUpCmd(ios, &globals{tmuxBin: "/opt/tmux"}, func(_ context.Context, o *upOptions) error {
			got = o
			return nil
		})
		cmd.SetArgs(c.args)
		cmd.SetOut(new(bytes.Buffer))
		cmd.SetErr(new(bytes.Buffer))
		err := cmd.Execute()
		if c.err != "" {
			if err == nil || err.Error() != c.err || got != nil {
				t.Errorf("%q: error %v, run %v; want the error %q", c.args, err, got != nil, c.err)
			}
			continue
		}
		if err != nil || got == nil {
			t.Fatalf("%q: %v, run %v", c.args, err, got != nil)
		}
		w := c.want
		w.IO, w.TmuxBin, w.claude = ios, "/opt/tmux", "/opt/claude"
		if upFlags(got) != upFlags(&w) || got.Up == nil || got.UpAll == nil || got.Supervise == nil || errOut.String() != c.errOut {
			t.Errorf("%q: options %+v, stderr %q; want %+v, %q", c.args, upFlags(got), errOut.String(), upFlags(&w), c.errOut)
		}
	}
}

// upFlags is what the flags and the environment set of o, comparable.
func upFlags(o *upOptions) any {
	type flags struct {
		io                                                          any
		tmuxBin, layout, claude                                     string
		recreate, changeFile, quiet, foreground, fresh, resume, all bool
		configWait                                                  time.Duration
	}
	return flags{o.IO, o.TmuxBin, o.layout, o.claude, o.recreate, o.changeFile, o.quiet, o.foreground, o.fresh, o.resume, o.all, o.configWait}
}

// upLayoutFile writes a layout file of team auth and returns its path.
func upLayoutFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "auth.yaml")
	if err := os.WriteFile(p, []byte("team: auth\nlead: {}\nmembers:\n  - name: web\n    command: [sh]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// upStatus is the status of team auth up, its members ended so that the
// table holds no time.
func upStatus() *team.Status {
	code := 0
	return &team.Status{Team: "auth", Socket: "teamctl-auth", Members: []team.MemberStatus{
		{Name: "lead", Role: "lead", Pane: "%0", PID: 100, State: state.StateExited, ExitCode: &code, Cwd: "/src"},
		{Name: "web", Role: "process", Pane: "%1", PID: 101, State: state.StateExited, ExitCode: &code, Cwd: "/src"},
	}}
}

const upTable = "MEMBER  ROLE     PANE  PID  STATE       UPTIME  CWD   DETAIL\n" +
	"lead    lead     %0    100  exited (0)  -       /src\n" +
	"web     process  %1    101  exited (0)  -       /src\n"

// TestUpRun: what up says of a team it brought up (its supervisor, what
// came up, resumed or not, the table, how to step in), in the foreground
// (the table, then the supervisor in this process), quietly (nothing), and
// as far as it got when it failed; and the options BringUp was given.
func TestUpRun(t *testing.T) {
	file := upLayoutFile(t)
	res := &team.UpResult{Started: []string{"lead"}, Respawned: []string{"web"}}
	resumed := &team.UpResult{Started: []string{"lead", "web"}, Resumed: []string{"lead"}, Afresh: []string{"web"}}
	for _, c := range []struct {
		name              string
		quiet, foreground bool
		b                 *team.BroughtUp
		err               error
		out               string
		supervised        bool
	}{
		{name: "up, its supervisor started", b: &team.BroughtUp{UpResult: res, SupervisorPID: 42, SupervisorStarted: true, Status: upStatus()},
			out: "supervisor started (pid 42)\n\nteam auth is up: 1 started, 1 relaunched, 0 already running (tmux -L teamctl-auth)\n" + upTable +
				"\nteamctl attach lead --team auth   # step in (detach: prefix d)\n"},
		{name: "resumed, its supervisor running", b: &team.BroughtUp{UpResult: resumed, SupervisorPID: 42, Status: upStatus()},
			out: "supervisor already running (pid 42)\n\nteam auth is up: 2 started, 0 relaunched, 0 already running (tmux -L teamctl-auth)\n" +
				"resumed: lead; started afresh: web; lost (the lead's to spawn again): none\n" + upTable +
				"\nteamctl attach lead --team auth   # step in (detach: prefix d)\n"},
		{name: "in the foreground", foreground: true, b: &team.BroughtUp{UpResult: res, Status: upStatus()}, supervised: true,
			out: upTable + "\nsupervising team auth in the foreground; Ctrl-C stops the supervisor (the team keeps running)\n"},
		{name: "quietly", quiet: true, b: &team.BroughtUp{UpResult: res, SupervisorPID: 42, SupervisorStarted: true}},
		{name: "quietly in the foreground", quiet: true, foreground: true, b: &team.BroughtUp{UpResult: res}, supervised: true},
		{name: "its status failed", b: &team.BroughtUp{UpResult: res, SupervisorPID: 42, SupervisorStarted: true}, err: errors.New("no server"),
			out: "supervisor started (pid 42)\n"},
		{name: "up failed", foreground: true, err: errors.New("up auth: tmux 3.1 is too old")},
	} {
		t.Run(c.name, func(t *testing.T) {
			ios, out, errOut := bufIO("")
			var got team.BringUpOptions
			var brought, supervised string
			o := &upOptions{IO: ios, TmuxBin: "/opt/tmux", layout: file, claude: "/opt/claude", recreate: true, changeFile: true,
				configWait: time.Second, quiet: c.quiet, foreground: c.foreground, fresh: true,
				Up: func(_ context.Context, l *layouts.Layout, o team.BringUpOptions) (*team.BroughtUp, error) {
					brought, got = l.Team, o
					return c.b, c.err
				},
				Supervise: func(_ context.Context, name string) error { supervised = name; return nil },
			}
			if err := upRun(context.Background(), o); !errors.Is(err, c.err) {
				t.Errorf("error %v, want %v", err, c.err)
			}
			if brought != "auth" || (supervised == "auth") != c.supervised {
				t.Errorf("brought up %q, supervised %q", brought, supervised)
			}
			want := team.BringUpOptions{UpOptions: team.UpOptions{TmuxBin: "/opt/tmux", ClaudeOverride: "/opt/claude", Recreate: true, LayoutChange: true,
				ConfigWait: time.Second, Height: -1, Fresh: true}, Foreground: c.foreground, Status: !c.quiet}
			if !c.quiet {
				want.Progress = ios.Out
			}
			if got != want {
				t.Errorf("brought up with %+v, want %+v", got, want)
			}
			if out.String() != c.out || errOut.Len() != 0 {
				t.Errorf("printed:\n%s\non stderr %q; want:\n%s", out.String(), errOut.String(), c.out)
			}
		})
	}
	// A layout that cannot be read: nothing is brought up.
	ios, _, _ := bufIO("")
	err := upRun(context.Background(), &upOptions{IO: ios, layout: filepath.Join(t.TempDir(), "none.yaml"),
		Up: func(context.Context, *layouts.Layout, team.BringUpOptions) (*team.BroughtUp, error) {
			t.Error("brought up")
			return nil, nil
		}})
	if err == nil || !strings.Contains(err.Error(), "none.yaml") {
		t.Errorf("error %v", err)
	}
}

// TestUpAllRun: up --all says each lost team as it comes back, what up says
// of it, and on stderr why one did not; with --foreground each is then
// supervised here; none lost is a sentence.
func TestUpAllRun(t *testing.T) {
	l, err := layouts.ParseBytes("/src/auth.yaml", []byte("team: auth\n"))
	if err != nil {
		t.Fatal(err)
	}
	auth := team.LostTeam{Name: "auth", LayoutPath: "/src/auth.yaml", Layout: l,
		Up: &team.BroughtUp{UpResult: &team.UpResult{Started: []string{"lead"}}, SupervisorPID: 42, SupervisorStarted: true}}
	moved := team.LostTeam{Name: "moved", LayoutPath: "/src/moved.yaml", Err: errors.New("/src/moved.yaml changed since up")}
	for _, c := range []struct {
		name              string
		quiet, foreground bool
		lost              []team.LostTeam
		superviseErr      error
		supervised        string // the teams supervised here, in order
		out, errOut       string
		doneErrs          []string
		err               string
	}{
		{name: "two lost, one back", lost: []team.LostTeam{auth, moved}, err: "1 of 2 lost teams could not be brought back: moved",
			out:      "== auth (/src/auth.yaml)\nsupervisor started (pid 42)\n== moved (/src/moved.yaml)\n",
			errOut:   "teamctl: team moved: /src/moved.yaml changed since up\n",
			doneErrs: []string{"", "/src/moved.yaml changed since up"}},
		{name: "quietly", quiet: true, lost: []team.LostTeam{auth, moved}, err: "1 of 2 lost teams could not be brought back: moved",
			errOut:   "teamctl: team moved: /src/moved.yaml changed since up\n",
			doneErrs: []string{"", "/src/moved.yaml changed since up"}},
		{name: "in the foreground, its supervisor fails", foreground: true, lost: []team.LostTeam{auth, moved}, superviseErr: errors.New("lock: taken"),
			err: "2 of 2 lost teams could not be brought back: auth, moved", out: "== auth (/src/auth.yaml)\nsupervisor started (pid 42)\n== moved (/src/moved.yaml)\n",
			errOut:   "teamctl: team auth: lock: taken\nteamctl: team moved: /src/moved.yaml changed since up\n",
			doneErrs: []string{"lock: taken", "/src/moved.yaml changed since up"}, supervised: "auth"},
		{name: "none lost", out: "no team is lost; nothing to bring back\n"},
		{name: "none lost, quietly", quiet: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ios, out, errOut := bufIO("")
			var got team.UpAllOptions
			var doneErrs []string
			supervised := ""
			o := &upOptions{IO: ios, all: true, quiet: c.quiet, foreground: c.foreground,
				UpAll: func(ctx context.Context, o team.UpAllOptions) (*team.UpAllResult, error) {
					got = o
					res := &team.UpAllResult{}
					for _, lt := range c.lost {
						res.Lost = append(res.Lost, lt.Name)
						o.Begin(team.TeamSummary{Team: lt.Name, Layout: lt.LayoutPath})
						err := o.Done(ctx, lt)
						doneErrs = append(doneErrs, "")
						if err != nil {
							doneErrs[len(doneErrs)-1] = err.Error()
							res.Failed = append(res.Failed, lt.Name)
						}
					}
					if len(res.Failed) > 0 {
						return res, errors.New(c.err)
					}
					return res, nil
				},
				Supervise: func(_ context.Context, name string) error { supervised += name; return c.superviseErr },
			}
			err := upRun(context.Background(), o)
			if c.err != "" && (err == nil || err.Error() != c.err) || c.err == "" && err != nil {
				t.Errorf("error %v, want %q", err, c.err)
			}
			if got.Foreground != c.foreground || got.Status == c.quiet || (got.Progress != nil) == c.quiet {
				t.Errorf("brought up with %+v", got.BringUpOptions)
			}
			if strings.Join(doneErrs, "|") != strings.Join(c.doneErrs, "|") || supervised != c.supervised {
				t.Errorf("the teams' errors %q, want %q; supervised %q", doneErrs, c.doneErrs, supervised)
			}
			if out.String() != c.out || errOut.String() != c.errOut {
				t.Errorf("printed:\n%s\non stderr:\n%s\nwant:\n%s\non stderr:\n%s", out.String(), errOut.String(), c.out, c.errOut)
			}
		})
	}
}
