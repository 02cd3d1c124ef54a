package team

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBringUp: up, then the team's supervisor (found running here, or left
// to the caller with Foreground), then its status when asked; a teamctl
// that cannot be found stops it before anything is made.
func TestBringUp(t *testing.T) {
	for _, c := range []struct {
		name       string
		o          BringUpOptions
		supervised bool // this test is the team's supervisor already
		noTeamctl  bool
		wantPID    bool
		wantStatus bool
		err        string
	}{
		{name: "its supervisor found running", supervised: true, o: BringUpOptions{Status: true}, wantPID: true, wantStatus: true},
		{name: "in the foreground: no supervisor", o: BringUpOptions{Foreground: true, Status: true}, wantStatus: true},
		{name: "quiet: no status", o: BringUpOptions{Foreground: true}},
		{name: "no teamctl", noTeamctl: true, o: BringUpOptions{Foreground: true}, err: "up alpha: no teamctl here"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeWorld(t)
			l := f.layout("team.yaml", alpha)
			if c.supervised {
				f.takeSupervisor("alpha")
			}
			w := f.world()
			if c.noTeamctl {
				w.teamctl = func() (string, error) { return "", errors.New("no teamctl here") }
			}
			c.o.ClaudeOverride = f.claude
			b, err := bringUp(f.ctx, w, l, c.o)
			if c.err != "" {
				if err == nil || err.Error() != c.err || b != nil {
					t.Fatalf("brought up %+v, %v; want the error %q", b, err, c.err)
				}
				if f.log != nil {
					t.Errorf("asked of tmux: %q", f.log)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(b.Started, []string{"lead", "worker", "sh"}) {
				t.Errorf("started %q", b.Started)
			}
			if c.wantPID != (b.SupervisorPID == os.Getpid()) || b.SupervisorStarted {
				t.Errorf("supervisor pid %d (started %v), this test's %d: want it %v", b.SupervisorPID, b.SupervisorStarted, os.Getpid(), c.wantPID)
			}
			if (b.Status != nil) != c.wantStatus || b.Status != nil && len(b.Status.Members) != 3 {
				t.Errorf("status %+v, want it %v", b.Status, c.wantStatus)
			}
			if st := f.state("alpha"); !strings.Contains(strings.Join(st.Members[1].Argv, " "), fakeTeamctl) {
				t.Errorf("the worker's hooks do not call the world's teamctl: %q", st.Members[1].Argv)
			}
		})
	}
}

// TestUpAll: every lost team, and only those, is brought back from the
// layout it was brought up from; one whose file changed since is passed by
// with what to do, and so is one whose caller's work after failed; the
// others come back all the same and the error names the ones that did not.
func TestUpAll(t *testing.T) {
	beta := "team: beta\nmembers:\n  - name: tester\n    command: [/bin/sh, -c, \"sleep 1000\"]\n"
	gamma := "team: gamma\n"
	for _, c := range []struct {
		name    string
		doneErr map[string]error // what Done returns of a team brought back
		failed  []string
		err     string
	}{
		{name: "a changed layout is passed by", failed: []string{"beta"},
			err: "1 of 2 lost teams could not be brought back: beta"},
		{name: "the caller's work after fails", doneErr: map[string]error{"alpha": errors.New("supervisor: gone")}, failed: []string{"alpha", "beta"},
			err: "2 of 2 lost teams could not be brought back: alpha, beta"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeWorld(t)
			f.up(f.layout("alpha.yaml", alpha))
			f.up(f.layout("beta.yaml", beta))
			f.up(f.layout("gamma.yaml", gamma))
			f.server("alpha").lose()
			f.server("beta").lose()
			// beta's layout changed since it was brought up: not taken again unnamed.
			if err := os.WriteFile(filepath.Join(f.dir, "beta.yaml"), []byte(beta+"# changed\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			var begun []string
			done := map[string]LostTeam{}
			res, err := upAll(f.ctx, f.world(), UpAllOptions{
				BringUpOptions: BringUpOptions{UpOptions: UpOptions{ClaudeOverride: f.claude}, Foreground: true, Status: true},
				Begin:          func(t TeamSummary) { begun = append(begun, t.Team+" "+filepath.Base(t.Layout)) },
				Done: func(_ context.Context, t LostTeam) error {
					done[t.Name] = t
					if t.Err != nil {
						return t.Err
					}
					return c.doneErr[t.Name]
				},
			})
			if err == nil || err.Error() != c.err {
				t.Errorf("error %v, want %q", err, c.err)
			}
			if !slices.Equal(begun, []string{"alpha alpha.yaml", "beta beta.yaml"}) {
				t.Errorf("begun %q", begun)
			}
			if !slices.Equal(res.Lost, []string{"alpha", "beta"}) || !slices.Equal(res.Failed, c.failed) {
				t.Errorf("lost %q, failed %q; want alpha, beta and %q", res.Lost, res.Failed, c.failed)
			}
			a, b := done["alpha"], done["beta"]
			if a.Err != nil || a.Up == nil || a.Up.Status == nil || a.Layout == nil || a.Layout.Team != "alpha" || len(a.Up.Started) != 3 {
				t.Errorf("alpha: %+v", a)
			}
			if !errors.Is(b.Err, ErrLayoutNotTrusted) || !strings.Contains(b.Err.Error(), "; look at it, then `teamctl up "+filepath.Join(f.dir, "beta.yaml")+"` brings the team back") || b.Up != nil {
				t.Errorf("beta: %+v", b)
			}
			if !f.servers["alpha"].running || f.servers["beta"].running {
				t.Errorf("alpha's server runs %v, beta's %v: want alpha's alone", f.servers["alpha"].running, f.servers["beta"].running)
			}
		})
	}
}

// TestFindOrAll: top's team is Find's, looked at once; with several teams up
// and none named, all of them.
func TestFindOrAll(t *testing.T) {
	beta := "team: beta\nmembers:\n  - name: tester\n    command: [/bin/sh, -c, \"sleep 1000\"]\n"
	for _, c := range []struct {
		name, flag, env string
		up              []string
		want            string
		all             []string
		err             string
	}{
		{name: "the one team up", up: []string{"alpha"}, want: "alpha"},
		{name: "two up, none named: both", up: []string{"alpha", "beta"}, all: []string{"alpha", "beta"}},
		{name: "two up, the flag names one", flag: "beta", up: []string{"alpha", "beta"}, want: "beta"},
		{name: "two up, TEAMCTL_TEAM names one", env: "alpha", up: []string{"alpha", "beta"}, want: "alpha"},
		{name: "a team named that has no state", flag: "nosuch", up: []string{"alpha", "beta"}, err: "nosuch"},
		{name: "none up", err: "no team is up"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeWorld(t)
			f.up(f.layout("alpha.yaml", alpha))
			f.up(f.layout("beta.yaml", beta))
			for _, name := range []string{"alpha", "beta"} {
				if !slices.Contains(c.up, name) {
					f.server(name).lose()
				}
			}
			t.Setenv("TEAMCTL_TEAM", c.env)
			name, all, err := findOrAll(f.ctx, f.world(), c.flag)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("found %q %q, %v; want an error saying %q", name, all, err, c.err)
				}
				return
			}
			if err != nil || name != c.want || !slices.Equal(all, c.all) {
				t.Errorf("found %q %q, %v; want %q %q", name, all, err, c.want, c.all)
			}
		})
	}
}
