package team

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
)

// TestLogs: what `teamctl logs` prints of a member, a line at a time, and
// what it asks of tmux for it: its pane's last lines while it has one (not
// tmux's "Pane is dead" notice), the last words the supervisor kept of a run
// whose pane is gone or replaced (under a line saying which run), following
// a running pane; and what it refuses.
func TestLogs(t *testing.T) {
	code := func(n int) *int { return &n }
	for _, c := range []struct {
		name   string
		setup  func(f *fakeWorld)
		member string
		o      LogsOptions
		want   []string // the log of tmux commands
		lines  []string // what is printed (${started}, ${ended}: the member's start, the words' keeping)
		err    string
	}{{
		name: "a running member: the last lines of its pane's history and screen",
		setup: func(f *fakeWorld) {
			f.server("alpha").history["%1"] = []string{"one", "two", "three"}
			f.server("alpha").screens["%1"] = "four  "
		},
		member: "worker", o: LogsOptions{Lines: 3},
		want:  []string{"list-panes", "capture-pane -p -J -S -3 -t %1"},
		lines: []string{"two", "three", "four"},
	}, {
		name: "an exited member: its own last lines, not tmux's notice of its end",
		setup: func(f *fakeWorld) {
			f.server("alpha").exit("sh", 3)
			f.server("alpha").history["%2"] = []string{"copying", "panic: disk full", ""}
			f.server("alpha").screens["%2"] = "Pane is dead (status 3, Tue Dec  1 09:00:00 2026)"
		},
		member: "sh", o: LogsOptions{Lines: DefaultLogLines},
		want:  []string{"list-panes", "capture-pane -p -J -S -100 -t %2"},
		lines: []string{"copying", "panic: disk full"},
	}, {
		name: "restarted since: the previous run's kept words first, then this run's lines",
		setup: func(f *fakeWorld) {
			f.words("worker", state.LastWords{Pane: "%9", PID: 42, ExitCode: code(3), Lines: []string{"old 1", "old 2", "old 3"}})
			f.server("alpha").screens["%1"] = "new 1"
		},
		member: "worker", o: LogsOptions{Lines: 2},
		want: []string{"list-panes", "capture-pane -p -J -S -2 -t %1"},
		lines: []string{"--- previous run (exit 3, ended ${ended}) ---", "old 2", "old 3",
			"--- this run (started ${started}) ---", "new 1"},
	}, {
		name: "the kept words of the run its pane still shows are not printed twice",
		setup: func(f *fakeWorld) {
			m, _ := f.state("alpha").Member("worker")
			f.words("worker", state.LastWords{Pane: m.Pane, PID: m.PID, ExitCode: code(3), Lines: []string{"kept"}})
			f.server("alpha").screens["%1"] = "on screen"
		},
		member: "worker", o: LogsOptions{Lines: 10},
		want:  []string{"list-panes", "capture-pane -p -J -S -10 -t %1"},
		lines: []string{"on screen"},
	}, {
		name: "the team down: the last run's kept words, tmux not asked",
		setup: func(f *fakeWorld) {
			f.stop()
			f.words("worker", state.LastWords{Pane: "%1", Signal: 15, Lines: []string{"bye"}})
		},
		member: "worker", o: LogsOptions{Lines: 10},
		lines: []string{"--- last run (signal 15, ended ${ended}) ---", "bye"},
	}, {
		name: "its server gone (a reboot): the last run's kept words",
		setup: func(f *fakeWorld) {
			f.server("alpha").lose()
			f.words("worker", state.LastWords{Pane: "%1", Lines: []string{"lost"}})
		},
		member: "worker", o: LogsOptions{Lines: 10},
		want:  []string{"list-panes"},
		lines: []string{"--- last run (ended ${ended}) ---", "lost"},
	}, {
		name:   "the team down and nothing kept: said so",
		setup:  func(f *fakeWorld) { f.stop() },
		member: "worker", o: LogsOptions{Lines: 10},
		err: "worker's pane is gone (the team's server is down) and no last lines of it were kept",
	}, {
		name:   "follow a running pane: it is followed, not captured",
		member: "worker", o: LogsOptions{Lines: 10, Follow: true},
		want: []string{"list-panes"},
		err:  "the fake server follows no pane", // the fake's FollowPane: it was asked
	}, {
		name: "follow an exited pane: its last lines, as without follow",
		setup: func(f *fakeWorld) {
			f.server("alpha").exit("sh", 0)
			f.server("alpha").screens["%2"] = "done"
		},
		member: "sh", o: LogsOptions{Lines: 5, Follow: true},
		want:  []string{"list-panes", "capture-pane -p -J -S -5 -t %2"},
		lines: []string{"done"},
	}, {
		name:   "refused: no such member, the members named",
		member: "nobody", o: LogsOptions{Lines: 10},
		err: `team alpha has no member "nobody" (members: lead, worker, sh)`,
	}, {
		name:   "refused: a negative count",
		member: "worker", o: LogsOptions{Lines: -1},
		err: "logs: -1 lines: want 0 or more",
	}} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeWorld(t)
			f.up(f.layout("team.yaml", alpha))
			if c.setup != nil {
				c.setup(f)
			}
			f.log = nil
			var got []string
			err := f.open("alpha").Logs(f.ctx, c.member, c.o, func(l string) { got = append(got, l) })
			f.wantLog(c.want...)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("logs: %v, want an error saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m, _ := f.state("alpha").Member("worker")
			r := strings.NewReplacer("${started}", m.StartedAt.Local().Format(time.DateTime),
				"${ended}", f.clock.now.Local().Format(time.DateTime))
			want := make([]string, len(c.lines))
			for i, l := range c.lines {
				want[i] = r.Replace(l)
			}
			if !slices.Equal(got, want) {
				t.Errorf("printed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// words keeps w as member's last words in team alpha, kept now.
func (f *fakeWorld) words(member string, w state.LastWords) {
	f.t.Helper()
	w.At = f.clock.now
	if err := state.WriteLastWords("alpha", member, w); err != nil {
		f.t.Fatal(err)
	}
}

// stop takes team alpha down at once.
func (f *fakeWorld) stop() {
	f.t.Helper()
	if _, err := down(f.ctx, f.world(), "alpha", DownOptions{Now: true}); err != nil {
		f.t.Fatal(err)
	}
}
