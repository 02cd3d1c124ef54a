package team

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
)

// live writes the supervisor's view of the members: name → what it knows
// (its Pane and PID filled in from state when empty).
func (f *fakeWorld) live(team string, members map[string]state.LiveMember) {
	f.t.Helper()
	st := f.state(team)
	l := &state.Live{Seen: f.clock.now, Members: map[string]*state.LiveMember{}}
	for name, lm := range members {
		m, _ := st.Member(name)
		if lm.Pane == "" {
			lm.Pane, lm.PID = m.Pane, m.PID
		}
		l.Members[name] = &lm
	}
	if err := state.WriteLive(team, l); err != nil {
		f.t.Fatal(err)
	}
}

// TestAnswer: what answering a member sends, to which pane, after asking
// what: the supervisor's verdict first (status), then the screen as it is
// now, whose Claude Code dialog is answered by choosing an option; and what
// it refuses without sending anything.
func TestAnswer(t *testing.T) {
	perm, idle := screenOf(t, "claude-permission.txt"), screenOf(t, "claude-idle.txt")
	stalled := func(pattern string) state.LiveMember {
		return state.LiveMember{State: state.StateStalled, Pattern: pattern, Line: "…"}
	}
	for _, c := range []struct {
		name       string
		supervised bool                        // a supervisor runs
		live       map[string]state.LiveMember // what it knows
		screens    map[string]string           // by pane
		member     string
		a          Answer
		want       []string // the log
		option     string   // the option chosen
		err        string
	}{{
		name: "n at a permission dialog chooses its No", supervised: true,
		live:    map[string]state.LiveMember{"worker": stalled("claude-permission")},
		screens: map[string]string{"%1": perm},
		member:  "worker", a: Answer{Reply: "n"},
		want:   []string{"list-panes", "capture-pane -p -J -t %1", "send-keys -t %1 -- 4"},
		option: "4. No",
	}, {
		name: "y at a plain prompt is typed, then Enter", supervised: true,
		live:    map[string]state.LiveMember{"sh": stalled("yes-no")},
		screens: map[string]string{"%2": "copying files\nOverwrite? (y/n) "},
		member:  "sh", a: Answer{Reply: "y"},
		want: []string{"list-panes", "capture-pane -p -J -t %2", "send-keys -t %2 -- y Enter"},
	}, {
		name: "forced: the keys go as they are, whatever status says", supervised: false,
		screens: map[string]string{"%1": idle},
		member:  "worker", a: Answer{Keys: []string{"Escape"}, Force: true},
		want: []string{"capture-pane -p -J -t %1", "send-keys -t %1 -- Escape"},
	}, {
		name: "refused: not stalled", supervised: true,
		live:   map[string]state.LiveMember{"worker": {State: state.StateRunning}},
		member: "worker", a: Answer{Reply: "y"},
		want: []string{"list-panes"},
		err:  "worker is working, not stalled: the answer would be typed into it as input (--force sends it anyway)",
	}, {
		name: "refused: no supervisor says it is stalled", supervised: false,
		member: "worker", a: Answer{Reply: "y"},
		want: []string{"list-panes"},
		err:  "no supervisor runs for team alpha, so nothing says worker is stalled",
	}, {
		name: "refused: at its input box by now", supervised: true,
		live:    map[string]state.LiveMember{"worker": stalled("claude-permission")},
		screens: map[string]string{"%1": idle},
		member:  "worker", a: Answer{Reply: "n"},
		want: []string{"list-panes", "capture-pane -p -J -t %1"},
		err:  "worker is at its input box now, no longer stalled",
	}, {
		name: "refused: the dialog changed from what the person saw", supervised: true,
		live:    map[string]state.LiveMember{"worker": stalled("claude-permission")},
		screens: map[string]string{"%1": perm},
		member:  "worker", a: Answer{Reply: "1", Expect: "1. Yes, and use auto mode"},
		want: []string{"list-panes", "capture-pane -p -J -t %1"},
		err:  "worker's dialog changed",
	}} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeWorld(t)
			f.up(f.layout("team.yaml", alpha))
			if c.supervised {
				f.takeSupervisor("alpha")
			}
			f.live("alpha", c.live)
			for pane, screen := range c.screens {
				f.server("alpha").screens[pane] = screen
			}
			got, err := f.open("alpha").Answer(f.ctx, c.member, c.a)
			f.wantLog(c.want...)
			evs := f.events("alpha", state.EventAnswer)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("answer: %v, want an error saying %q", err, c.err)
				}
				if len(evs) != 0 {
					t.Errorf("a refused answer recorded %+v", evs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Option != c.option {
				t.Errorf("chose %q, want %q", got.Option, c.option)
			}
			if len(evs) != 1 || evs[0].Member != c.member || !slices.Equal(evs[0].Keys, got.Keys) || evs[0].Option != c.option {
				t.Errorf("answer events %+v, want one of %s's keys %q", evs, c.member, got.Keys)
			}
		})
	}
}

// TestAnswerNotRecorded: keys that went out but could not be recorded are a
// NotRecordedError with what was sent: the caller must not send them again.
func TestAnswerNotRecorded(t *testing.T) {
	f := newFakeWorld(t)
	f.up(f.layout("team.yaml", alpha))
	path, err := state.EventsPath("alpha")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	if err := os.Mkdir(path, 0o700); err != nil { // no file to append to
		t.Fatal(err)
	}
	got, err := f.open("alpha").Answer(f.ctx, "worker", Answer{Keys: []string{"Enter"}, Force: true})
	var nr *NotRecordedError
	if !errors.As(err, &nr) || got == nil || !slices.Equal(got.Keys, []string{"Enter"}) {
		t.Fatalf("answer: %+v, %v; want the keys sent and a NotRecordedError", got, err)
	}
	f.wantLog("capture-pane -p -J -t %1", "send-keys -t %1 -- Enter")
}

// TestSend: a teammate's text goes to its mailbox, the lead's to the queue
// the supervisor types from; neither asks tmux anything, and what cannot be
// given is refused.
func TestSend(t *testing.T) {
	for _, c := range []struct {
		name, member, text string
		supervised         bool
		say, err           string
	}{
		{name: "a teammate finds it in its mailbox", member: "worker", text: "and the tests",
			say: "left in its mailbox as a message from team-lead"},
		{name: "the lead's is queued for the supervisor", member: "lead", text: "status?", supervised: true,
			say: "queued for the lead: typed into its pane when it is idle"},
		{name: "the lead's is refused without a supervisor", member: "lead", text: "status?",
			err: "no supervisor runs for team alpha to type into the lead when it is idle"},
		{name: "a plain process has no mailbox", member: "sh", text: "hello",
			err: "sh is a plain process, not Claude Code"},
		{name: "a control character is refused", member: "worker", text: "hi\x1b[Z",
			err: "not sent: the text holds the control character"},
		{name: "empty text is refused", member: "worker", text: "  ",
			err: "nothing to send: the text is empty"},
		// 200 KiB is over what one argument of tmux's may be: the supervisor
		// types it through a paste buffer (tmux.Server.Type), whole.
		{name: "200 KiB for the lead is queued whole", member: "lead", text: strings.Repeat("long text ", 20<<10), supervised: true,
			say: "queued for the lead: typed into its pane when it is idle"},
		{name: "over 1 MiB is refused", member: "lead", text: strings.Repeat("x", state.MaxLeadText+1), supervised: true,
			err: "not sent: the text is 1048577 bytes, over the 1048576 (1 MiB) a message may be"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeWorld(t)
			st := f.up(f.layout("team.yaml", alpha))
			if c.supervised {
				f.takeSupervisor("alpha")
			}
			say, err := f.open("alpha").Send(f.ctx, c.member, c.text)
			f.wantLog() // nothing typed: the supervisor types for the lead
			queued := leadQueue(t, "alpha")
			inbox := inboxTexts(t, st, "worker")
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("send: %v, want an error saying %q", err, c.err)
				}
				if len(queued) != 0 || len(inbox) != 1 {
					t.Errorf("a refused send left %q queued and %q in the mailbox", queued, inbox)
				}
				return
			}
			if err != nil || say != c.say {
				t.Fatalf("send: %q, %v; want %q", say, err, c.say)
			}
			switch c.member {
			case "lead":
				if !slices.Equal(queued, []string{c.text}) {
					t.Errorf("queued %q, want %q", queued, c.text)
				}
			default:
				if !slices.Equal(inbox, []string{"look around", c.text}) {
					t.Errorf("mailbox %q, want the prompt then %q", inbox, c.text)
				}
				if evs := f.events("alpha", state.EventMessage); len(evs) != 1 || evs[0].Member != c.member {
					t.Errorf("message events %+v", evs)
				}
			}
		})
	}
}

// leadQueue is the text queued for team's lead.
func leadQueue(t *testing.T, team string) []string {
	t.Helper()
	var out []string
	if _, err := state.ReadLeadQueue(team, 0, func(text string, _ int64) { out = append(out, text) }); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return out
}

// TestStatus: each member's state from state.json, what tmux says of its
// pane (running or exited, and how) and, while a supervisor runs, what it
// knows; a team whose server is gone is lost; an ended member's last lines.
func TestStatus(t *testing.T) {
	code := func(n int) *int { return &n }
	for _, c := range []struct {
		name       string
		setup      func(f *fakeWorld)
		supervised bool
		live       map[string]state.LiveMember
		want       []string // the log
		states     []string // "member state", in order
		lost       bool
		check      func(t *testing.T, f *fakeWorld, s *Status)
	}{{
		name: "tmux judges running and exited; an exited member's last lines from its dead pane",
		setup: func(f *fakeWorld) {
			f.server("alpha").exit("worker", 3)
			f.server("alpha").history["%1"] = []string{"working", "panic: out of tokens"}
		},
		want:   []string{"list-panes", "capture-pane -p -J -S -10 -t %1"},
		states: []string{"lead running", "worker exited", "sh running"},
		check: func(t *testing.T, f *fakeWorld, s *Status) {
			w := s.Members[1]
			if w.ExitCode == nil || *w.ExitCode != 3 || !slices.Equal(w.LastLines, []string{"working", "panic: out of tokens"}) {
				t.Errorf("worker: exit %v, last lines %q", w.ExitCode, w.LastLines)
			}
			if s.Supervisor.Running {
				t.Error("a supervisor said to run")
			}
		},
	}, {
		name:       "the supervisor's states while it runs: stalled, idle",
		supervised: true,
		live: map[string]state.LiveMember{
			"worker": {State: state.StateStalled, Pattern: "claude-permission", Line: "Do you want to proceed?"},
			"sh":     {State: state.StateIdle, Result: "done"},
			"lead":   {State: state.StateRunning},
		},
		want:   []string{"list-panes"},
		states: []string{"lead running", "worker stalled", "sh idle"},
		check: func(t *testing.T, f *fakeWorld, s *Status) {
			if st := s.Members[1].Stall; st == nil || st.Pattern != "claude-permission" {
				t.Errorf("worker's stall %+v", st)
			}
			if s.Members[2].Result != "done" || !s.Supervisor.Running {
				t.Errorf("sh's result %q, supervisor %+v", s.Members[2].Result, s.Supervisor)
			}
		},
	}, {
		name:       "limited, with the reset time the supervisor saw",
		supervised: true,
		live: map[string]state.LiveMember{
			"worker": {State: state.StateLimited, Line: "✻ 5-hour limit reached · retrying in 4s (9:05am) · attempt 2/10",
				Reset: time.Date(2026, 12, 2, 9, 5, 0, 0, time.UTC), ResetShown: "9:05am"},
		},
		want:   []string{"list-panes"},
		states: []string{"lead running", "worker limited", "sh running"},
		check: func(t *testing.T, f *fakeWorld, s *Status) {
			l := s.Members[1].Limit
			if l == nil || !l.Reset.Equal(time.Date(2026, 12, 2, 9, 5, 0, 0, time.UTC)) || l.ResetShown != "9:05am" || !strings.Contains(l.Line, "limit reached") {
				t.Errorf("worker's limit %+v", l)
			}
		},
	}, {
		name:   "without a supervisor, what it last wrote is not taken",
		live:   map[string]state.LiveMember{"worker": {State: state.StateStalled, Pattern: "claude-permission"}},
		want:   []string{"list-panes"},
		states: []string{"lead running", "worker running", "sh running"},
	}, {
		name:       "what the supervisor knows of another pane (a relaunch since) is not taken",
		supervised: true,
		live:       map[string]state.LiveMember{"worker": {Pane: "%7", State: state.StateStalled, Pattern: "claude-permission"}},
		want:       []string{"list-panes"},
		states:     []string{"lead running", "worker running", "sh running"},
	}, {
		name:       "failed, as the supervisor says, only while tmux says it ended",
		setup:      func(f *fakeWorld) { f.server("alpha").exit("sh", 1) },
		supervised: true,
		live: map[string]state.LiveMember{
			"sh":     {State: state.StateFailed, Reason: "exited 6 times within 1m0s; not restarting", ExitCode: code(1)},
			"worker": {State: state.StateFailed, Reason: "stale"},
		},
		want:   []string{"list-panes", "capture-pane -p -J -S -10 -t %2"},
		states: []string{"lead running", "worker running", "sh failed"},
		check: func(t *testing.T, f *fakeWorld, s *Status) {
			if s.Members[2].Reason != "exited 6 times within 1m0s; not restarting" {
				t.Errorf("sh's reason %q", s.Members[2].Reason)
			}
		},
	}, {
		name: "the last words the supervisor kept of that run, instead of the pane",
		setup: func(f *fakeWorld) {
			f.server("alpha").exit("worker", 2)
			m, _ := f.state("alpha").Member("worker")
			if err := state.WriteLastWords("alpha", "worker", state.LastWords{Pane: m.Pane, PID: m.PID, Lines: []string{"kept"}, At: f.clock.now}); err != nil {
				f.t.Fatal(err)
			}
		},
		want:   []string{"list-panes"},
		states: []string{"lead running", "worker exited", "sh running"},
		check: func(t *testing.T, f *fakeWorld, s *Status) {
			if !slices.Equal(s.Members[1].LastLines, []string{"kept"}) {
				t.Errorf("worker's last lines %q", s.Members[1].LastLines)
			}
		},
	}, {
		name:   "its server gone while state says up: lost, last seen when the supervisor last wrote",
		setup:  func(f *fakeWorld) { f.server("alpha").lose() },
		live:   map[string]state.LiveMember{},
		want:   []string{"list-panes"},
		states: []string{"lead exited", "worker exited", "sh exited"},
		lost:   true,
		check: func(t *testing.T, f *fakeWorld, s *Status) {
			if s.LastSeen == nil || !s.LastSeen.Equal(f.clock.now) {
				t.Errorf("last seen %v, want %s", s.LastSeen, f.clock.now)
			}
		},
	}, {
		name: "down: tmux is not asked",
		setup: func(f *fakeWorld) {
			if _, err := down(f.ctx, f.world(), "alpha", DownOptions{Now: true}); err != nil {
				f.t.Fatal(err)
			}
			f.log = nil
		},
		states: []string{"lead exited", "worker exited", "sh exited"},
	}} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeWorld(t)
			f.up(f.layout("team.yaml", alpha))
			if c.setup != nil {
				c.setup(f)
			}
			f.clock.now = f.clock.now.Add(time.Minute)
			if c.supervised {
				f.takeSupervisor("alpha")
			}
			if c.live != nil {
				f.live("alpha", c.live)
			}
			s, err := f.open("alpha").Status(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			f.wantLog(c.want...)
			var got []string
			for _, m := range s.Members {
				got = append(got, m.Name+" "+string(m.State))
			}
			if !slices.Equal(got, c.states) || s.Lost != c.lost {
				t.Errorf("states %q (lost %v), want %q (lost %v)", got, s.Lost, c.states, c.lost)
			}
			if c.check != nil {
				c.check(t, f, s)
			}
		})
	}
}

// TestAttach: attaching selects the member's pane and window, and attaches
// to the member's own session by id, whatever it is called now.
func TestAttach(t *testing.T) {
	f := newFakeWorld(t)
	f.up(f.layout("team.yaml", alpha))
	for _, p := range f.server("alpha").panes {
		p.Session = "renamed"
	}
	a, err := f.open("alpha").Attach(f.ctx, "worker")
	if err != nil {
		t.Fatal(err)
	}
	f.wantLog("select-window -t %1 ; select-pane -t %1", "list-panes", "show-options -gv prefix")
	if a.target != "$0" || a.Prefix != "C-b" {
		t.Errorf("attaches to %q (prefix %q), want $0 (C-b)", a.target, a.Prefix)
	}
}

// TestFindFor: which team a command is about — the flag, else TEAMCTL_TEAM,
// else the one team up (its server holding its panes), else the one up with
// the member named — asking each team's own server.
func TestFindFor(t *testing.T) {
	beta := "team: beta\nmembers:\n  - name: tester\n    command: [/bin/sh, -c, \"sleep 1000\"]\n"
	for _, c := range []struct {
		name, flag, env, member string
		up                      []string // the teams up, of alpha and beta (both have state)
		want, err               string
	}{
		{name: "the flag", flag: "beta", up: []string{"alpha"}, want: "beta"},
		{name: "TEAMCTL_TEAM", env: "beta", up: []string{"alpha"}, want: "beta"},
		{name: "the one team up", up: []string{"alpha"}, want: "alpha"},
		{name: "none up", err: "no team is up (teams with state: alpha, beta)"},
		{name: "two up, none named", up: []string{"alpha", "beta"}, err: "2 teams are up (alpha, beta): name one with --team or TEAMCTL_TEAM"},
		{name: "two up, the one with the member", up: []string{"alpha", "beta"}, member: "tester", want: "beta"},
		{name: "two up, neither with the member", up: []string{"alpha", "beta"}, member: "nobody", err: "2 teams are up (alpha, beta) and none has a member nobody"},
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
			got, err := findFor(f.ctx, f.world(), c.flag, c.member)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("find: %q, %v; want an error saying %q", got, err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("find: %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// TestList: every team with state, each as its status says: up with the
// members that run, lost when its server went without a down.
func TestList(t *testing.T) {
	f := newFakeWorld(t)
	f.up(f.layout("alpha.yaml", alpha))
	f.up(f.layout("beta.yaml", "team: beta\n"))
	f.server("alpha").exit("sh", 1)
	f.server("beta").lose()
	ts, err := list(f.ctx, f.world())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range ts {
		got = append(got, fmt.Sprintf("%s up=%v lost=%v %d/%d", s.Team, s.Up, s.Lost, s.Running, s.Members))
	}
	if want := []string{"alpha up=true lost=false 2/3", "beta up=false lost=true 0/1"}; !slices.Equal(got, want) {
		t.Errorf("listed %q, want %q", got, want)
	}
}
