package team

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/relaunch"
	"github.com/teamctl/teamctl/state"
)

// approveShutdown plays a Claude Code teammate that approves the shutdown
// request in its inbox: it writes shutdown_approved to the lead and ends.
func approveShutdown(f *fakeWorld, team, member string) func([]proc.Target) map[proc.Target]bool {
	return func(targets []proc.Target) map[proc.Target]bool {
		st := f.state(team)
		dir := relaunch.ClaudeConfigDir(st)
		id := ""
		for _, text := range inboxTexts(f.t, st, member) {
			if v, _ := claudecode.ParseProtocol(text); v != nil {
				if r, ok := v.(claudecode.ShutdownRequest); ok {
					id = r.RequestID
				}
			}
		}
		lead, err := claudecode.InboxPath(dir, st.ClaudeTeam, claudecode.LeadMailboxName)
		if err == nil {
			err = claudecode.AppendMessage(context.Background(), lead, claudecode.ShutdownApprovedMessage(member, id, f.clock.now))
		}
		if err != nil || id == "" {
			f.t.Fatalf("no shutdown request for %s to approve (%v)", member, err)
		}
		m, _ := st.Member(member)
		return map[proc.Target]bool{proc.Group(m.PID): true}
	}
}

// TestDown: what down signals and asks of tmux, in order — the supervisor
// first (nothing may restart a member being stopped), Claude Code teammates
// asked to shut down and given time, every other pane's process group, the
// lead last, the stop recorded, the server, then the team's strays — and what
// it says of how each member ended.
func TestDown(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(f *fakeWorld)
		o     DownOptions
		want  []string // the log
		// How the members ended.
		terminated, killed, shutDown []string
		alreadyDown                  bool
		progress                     string // in what it printed
	}{{
		name: "the supervisor, then the teammate asked to shut down, then the rest, the lead last",
		setup: func(f *fakeWorld) {
			f.up(f.layout("team.yaml", alpha))
			f.takeSupervisor("alpha")
			f.onWait = approveShutdown(f, "alpha", "worker")
		},
		want: []string{
			"end process supervisor (grace 5s)",
			"list-panes",
			"wait for group worker (5s)",
			"end group sh, group worker (grace 10s)",
			"end group lead (grace 10s)",
			"kill-server",
			"end strays of ${socket alpha} (grace 2s)",
		},
		terminated: []string{"lead", "sh", "worker"},
		shutDown:   []string{"worker"},
		progress:   "asked 1 teammate(s) to shut down; waiting up to 5s for them to end (--now skips this)…",
	}, {
		name: "a teammate that does not end on the request gets SIGTERM with the rest",
		setup: func(f *fakeWorld) {
			f.up(f.layout("team.yaml", alpha))
		},
		o: DownOptions{Timeout: 4 * time.Second},
		want: []string{
			"list-panes",
			"wait for group worker (2s)",
			"end group sh, group worker (grace 4s)",
			"end group lead (grace 4s)",
			"kill-server",
			"end strays of ${socket alpha} (grace 2s)",
		},
		terminated: []string{"lead", "sh", "worker"},
		progress:   "worker did not end within 2s of the shutdown request: SIGTERM",
	}, {
		name:  "--now: no shutdown request, no wait",
		setup: func(f *fakeWorld) { f.up(f.layout("team.yaml", alpha)) },
		o:     DownOptions{Now: true},
		want: []string{
			"list-panes",
			"end group sh, group worker (grace 10s)",
			"end group lead (grace 10s)",
			"kill-server",
			"end strays of ${socket alpha} (grace 2s)",
		},
		terminated: []string{"lead", "sh", "worker"},
	}, {
		name: "a member that SIGTERM does not stop is killed, and said so",
		setup: func(f *fakeWorld) {
			st := f.up(f.layout("team.yaml", alpha))
			m, _ := st.Member("sh")
			f.stubborn[m.PID] = true
		},
		o: DownOptions{Now: true},
		want: []string{
			"list-panes",
			"end group sh, group worker (grace 10s)",
			"end group lead (grace 10s)",
			"kill-server",
			"end strays of ${socket alpha} (grace 2s)",
		},
		terminated: []string{"lead", "worker"},
		killed:     []string{"sh"},
		progress:   "sh did not stop within 10s: killed",
	}, {
		name: "exited members are not signalled",
		setup: func(f *fakeWorld) {
			f.up(f.layout("team.yaml", alpha))
			f.server("alpha").exit("sh", 1)
			f.server("alpha").exit("worker", 0)
		},
		want: []string{
			"list-panes",
			"end group lead (grace 10s)",
			"kill-server",
			"end strays of ${socket alpha} (grace 2s)",
		},
		terminated: []string{"lead"},
	}, {
		name: "its server is gone: the stop is recorded and its strays ended all the same",
		setup: func(f *fakeWorld) {
			f.up(f.layout("team.yaml", alpha))
			f.server("alpha").lose()
		},
		want: []string{
			"list-panes",
			"kill-server",
			"end strays of ${socket alpha} (grace 2s)",
		},
	}, {
		name: "recorded as stopped, but a server was left running: stopped all the same",
		setup: func(f *fakeWorld) {
			f.up(f.layout("team.yaml", alpha))
			st := f.state("alpha")
			st.StoppedAt = &f.clock.now
			if err := state.Save(st); err != nil {
				f.t.Fatal(err)
			}
		},
		o: DownOptions{Now: true},
		want: []string{
			"list-panes", "list-panes",
			"end group sh, group worker (grace 10s)",
			"end group lead (grace 10s)",
			"kill-server",
			"end strays of ${socket alpha} (grace 2s)",
		},
		terminated: []string{"lead", "sh", "worker"},
	}, {
		name: "down already: nothing is done",
		setup: func(f *fakeWorld) {
			f.up(f.layout("team.yaml", alpha))
			if _, err := down(f.ctx, f.world(), "alpha", DownOptions{Now: true}); err != nil {
				f.t.Fatal(err)
			}
			f.log = nil
		},
		want:        []string{"list-panes"},
		alreadyDown: true,
	}} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeWorld(t)
			c.setup(f)
			f.clock.now = f.clock.now.Add(time.Hour)
			var out bytes.Buffer
			c.o.Progress = &out
			res, err := f.open("alpha").Down(f.ctx, c.o)
			if err != nil {
				t.Fatal(err)
			}
			f.wantLog(c.want...)
			slices.Sort(res.Terminated)
			for _, r := range []struct {
				what      string
				got, want []string
			}{{"terminated", res.Terminated, c.terminated}, {"killed", res.Killed, c.killed}, {"shut down", res.ShutDown, c.shutDown}} {
				if !slices.Equal(r.got, r.want) {
					t.Errorf("%s %q, want %q", r.what, r.got, r.want)
				}
			}
			if res.AlreadyDown != c.alreadyDown {
				t.Errorf("already down: %v, want %v", res.AlreadyDown, c.alreadyDown)
			}
			if c.progress != "" && !strings.Contains(out.String(), c.progress) {
				t.Errorf("printed %q, want %q", out.String(), c.progress)
			}
			st := f.state("alpha")
			if c.alreadyDown {
				return
			}
			if st.StoppedAt == nil || !st.StoppedAt.Equal(f.clock.now) {
				t.Errorf("stop recorded at %v, want %s", st.StoppedAt, f.clock.now)
			}
			if pid, _ := state.SupervisorPID("alpha"); pid != 0 {
				t.Errorf("the supervisor (pid %d) still runs", pid)
			}
		})
	}
}
