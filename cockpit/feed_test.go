package cockpit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team"
	"github.com/teamctl/teamctl/team/model"
)

// source is a real teamctl's Source (team's verbs, as top's own) but for
// the status, which names the panes of a tmux server the test made, and
// counts the looks.
type source struct {
	panes  []string
	byTeam map[string][]string // each team's, when several
	looks  atomic.Int32
}

func (s *source) TailEvents(name string, back int64) (EventReader, error) {
	return state.TailEvents(name, back)
}

func (s *source) Watch(ctx context.Context, o state.WatchOptions) (*state.Watcher, error) {
	return state.Watch(ctx, o)
}

func (s *source) Follow(ctx context.Context, name string, panes []string) (PaneFollow, error) {
	tm, err := team.Open(ctx, name, "")
	if err != nil {
		return nil, err
	}
	return tm.Follow(ctx, panes, team.FollowOptions{Gather: OutputGather})
}

func (s *source) Status(ctx context.Context, team string) (*Snapshot, error) {
	s.looks.Add(1)
	st := &model.Status{Team: team}
	panes := s.panes
	if s.byTeam != nil {
		panes = s.byTeam[team]
	}
	for i, p := range panes {
		st.Members = append(st.Members, model.MemberStatus{Name: fmt.Sprint("m", i), Pane: p, State: "running"})
	}
	return &Snapshot{Status: st, Taken: time.Now()}, nil
}

// inbox collects what the feed sends the program.
type inbox struct {
	mu   sync.Mutex
	msgs []tea.Msg
}

func (b *inbox) send(m tea.Msg) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.msgs = append(b.msgs, m)
}

func (b *inbox) all() []tea.Msg {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.msgs)
}

func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, seen := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; last seen:\n%s", what, seen)
		}
		time.Sleep(10 * time.Millisecond) // poll interval of a condition wait
	}
}

func tmuxOn(t *testing.T, socket string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", append([]string{"-L", socket}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// The feed follows a team for real: the focused pane's screen on its output
// (and another's once focused), a new look at the status when state.json
// changes and when a pane exits, and each event appended to events.jsonl.
func TestFeedFollowsFilesAndPanes(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	tt, err := os.MkdirTemp("", "tc") // short: it holds the socket
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMUX_TMPDIR", tt)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	const team = "feedt"
	socket := state.SocketName(team)
	t.Cleanup(func() {
		exec.Command("tmux", "-L", socket, "kill-server").Run()
		os.RemoveAll(tt)
	})
	// A team's state, which team's Follow opens it by.
	if err := state.Save(&state.Team{Team: team}); err != nil {
		t.Fatal(err)
	}
	dir, err := state.Dir(team)
	if err != nil {
		t.Fatal(err)
	}
	first := tmuxOn(t, socket, "new-session", "-d", "-s", team, "-x", "100", "-y", "30", "-P", "-F", "#{pane_id}", "sh", "-c", "echo FIRST-SCREEN; exec cat")
	tmuxOn(t, socket, "set-option", "-g", "remain-on-exit", "on")
	second := tmuxOn(t, socket, "split-window", "-t", first, "-P", "-F", "#{pane_id}", "sh", "-c", "while :; do echo noise; sleep 0.05; done")

	src := &source{panes: []string{first, second}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := NewFeed(ctx, src)
	var got inbox
	f.Start(got.send)
	f.Focus(team, first)
	f.Follow([]string{team}, false)
	defer f.Close()

	screenHas := func(pane, text string) func() (bool, string) {
		return func() (bool, string) {
			var last []string
			for _, m := range got.all() {
				if s, ok := m.(ScreenMsg); ok && s.Pane == pane {
					last = s.Lines
				}
			}
			return strings.Contains(strings.Join(last, "\n"), text), strings.Join(last, "\n")
		}
	}
	statuses := func() int {
		n := 0
		for _, m := range got.all() {
			if s, ok := m.(StatusMsg); ok && s.Err == nil && s.Team == team {
				n++
			}
		}
		return n
	}
	waitFor(t, "a first look at the team", func() (bool, string) { return statuses() >= 1, fmt.Sprint(got.all()) })
	waitFor(t, "the focused pane's screen", screenHas(first, "FIRST-SCREEN"))

	// Its output is captured again.
	tmuxOn(t, socket, "send-keys", "-t", first, "-l", "MARK-TWO")
	tmuxOn(t, socket, "send-keys", "-t", first, "Enter")
	waitFor(t, "the focused pane's new output", screenHas(first, "MARK-TWO"))

	// A change of state.json is a new look.
	looks := src.looks.Load()
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a new look after state.json changed", func() (bool, string) {
		return src.looks.Load() > looks, fmt.Sprint(src.looks.Load())
	})

	// An appended event is handed on.
	// One line in one write, as every writer appends.
	ev, err := os.OpenFile(filepath.Join(dir, "events.jsonl"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	ev.WriteString(`{"time":"2026-05-01T12:00:00Z","team":"feedt","member":"m0","kind":"stall","line":"EVENT-MARK"}` + "\n")
	ev.Close()
	waitFor(t, "the appended event", func() (bool, string) {
		for _, m := range got.all() {
			if e, ok := m.(EventsMsg); ok && slices.ContainsFunc(e.Events, func(e Event) bool { return e.Line == "EVENT-MARK" }) {
				return true, ""
			}
		}
		return false, fmt.Sprint(got.all())
	})

	// Another pane, once focused, is captured.
	f.Focus(team, second)
	waitFor(t, "the second pane's screen once focused", screenHas(second, "noise"))

	// Back to the first, quiet now: captured at once all the same.
	n := len(got.all())
	f.Focus(team, first)
	waitFor(t, "the quiet first pane's screen once focused again", func() (bool, string) {
		for _, m := range got.all()[n:] {
			if s, ok := m.(ScreenMsg); ok && s.Pane == first {
				return true, ""
			}
		}
		return false, fmt.Sprint(got.all()[n:])
	})

	// A pane's exit, which only tmux knows, is a new look.
	looks = src.looks.Load()
	tmuxOn(t, socket, "send-keys", "-t", second, "C-c")
	waitFor(t, "a new look after a pane exited", func() (bool, string) {
		return src.looks.Load() > looks, tmuxOn(t, socket, "list-panes", "-a", "-F", "#{pane_id} #{pane_dead}")
	})
}

// clients counts the control clients attached to a tmux server.
func clients(t *testing.T, socket string) int {
	t.Helper()
	out := tmuxOn(t, socket, "list-clients", "-F", "#{client_control_mode}")
	return strings.Count(out, "1")
}

// The feed follows two teams: each one's status and events from its folder,
// the screen of the focused pane in whichever team, through one control
// client at a time, to the focused team's server; and, watching for others,
// it says when a team's folder appears with a state.json.
func TestFeedFollowsSeveralTeamsWithOneControlClient(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	tt, err := os.MkdirTemp("", "tc")
	if err != nil {
		t.Fatal(err)
	}
	// Removed last, once both servers are killed: cleanups run last first,
	// and a server whose socket is gone can no longer be told to end.
	t.Cleanup(func() { os.RemoveAll(tt) })
	t.Setenv("TMUX_TMPDIR", tt)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	teams := []string{"feeda", "feedb"}
	src := &source{byTeam: map[string][]string{}}
	for _, team := range teams {
		socket := state.SocketName(team)
		t.Cleanup(func() { exec.Command("tmux", "-L", socket, "kill-server").Run() })
		if err := state.Save(&state.Team{Team: team}); err != nil { // which team's Follow opens it by
			t.Fatal(err)
		}
		// Both panes are %0, each in its own server.
		src.byTeam[team] = []string{tmuxOn(t, socket, "new-session", "-d", "-s", team, "-x", "100", "-y", "30", "-P", "-F", "#{pane_id}",
			"sh", "-c", "echo SCREEN-OF-"+team+"; exec cat")}
	}
	sockA, sockB := state.SocketName(teams[0]), state.SocketName(teams[1])

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := NewFeed(ctx, src)
	var got inbox
	f.Start(got.send)
	f.Follow(teams, true)
	f.Focus(teams[0], src.byTeam[teams[0]][0])
	defer f.Close()

	screenOf := func(team, text string) func() (bool, string) {
		return func() (bool, string) {
			var last []string
			for _, m := range got.all() {
				if s, ok := m.(ScreenMsg); ok && s.Team == team {
					last = s.Lines
				}
			}
			return strings.Contains(strings.Join(last, "\n"), text), strings.Join(last, "\n")
		}
	}
	for _, team := range teams {
		waitFor(t, "a first look at "+team, func() (bool, string) {
			for _, m := range got.all() {
				if s, ok := m.(StatusMsg); ok && s.Team == team && s.Err == nil {
					return true, ""
				}
			}
			return false, fmt.Sprint(got.all())
		})
	}
	waitFor(t, "feeda's pane on screen", screenOf(teams[0], "SCREEN-OF-feeda"))
	if a, b := clients(t, sockA), clients(t, sockB); a != 1 || b != 0 {
		t.Fatalf("control clients: %d on feeda's server, %d on feedb's; want 1 and 0", a, b)
	}

	// The focus moves to feedb's pane: its screen, through a client on its
	// server, once feeda's has ended (never both).
	f.Focus(teams[1], src.byTeam[teams[1]][0])
	waitFor(t, "feedb's pane on screen", screenOf(teams[1], "SCREEN-OF-feedb"))
	waitFor(t, "one control client, on feedb's server", func() (bool, string) {
		b := clients(t, sockB) // first: a client on feeda's seen after it would be two at once
		a := clients(t, sockA)
		if a > 0 && b > 0 {
			t.Errorf("a control client on both servers at once")
		}
		return a == 0 && b == 1, fmt.Sprintf("feeda %d, feedb %d", a, b)
	})

	// feeda's folder is still followed: an event appended there comes.
	ev, err := os.OpenFile(filepath.Join(os.Getenv("XDG_STATE_HOME"), "teamctl", teams[0], "events.jsonl"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	ev.WriteString(`{"time":"2026-05-01T12:00:00Z","team":"feeda","member":"m0","kind":"stall","line":"A-EVENT"}` + "\n")
	ev.Close()
	waitFor(t, "feeda's event", func() (bool, string) {
		for _, m := range got.all() {
			if e, ok := m.(EventsMsg); ok && e.Team == teams[0] && slices.ContainsFunc(e.Events, func(e Event) bool { return e.Line == "A-EVENT" }) {
				return true, ""
			}
		}
		return false, fmt.Sprint(got.all())
	})

	// A team coming up: its folder made, then its state.json written.
	changes := func() int {
		n := 0
		for _, m := range got.all() {
			if _, ok := m.(TeamsChangedMsg); ok {
				n++
			}
		}
		return n
	}
	before := changes()
	dir, err := state.EnsureDir("feedc")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "word of a team's folder made", func() (bool, string) { return changes() > before, fmt.Sprint(changes()) })
	before = changes()
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "word of its state.json written", func() (bool, string) { return changes() > before, fmt.Sprint(changes()) })

	// Following feedb alone, with no focus: no control client anywhere.
	f.Follow(teams[1:], false)
	f.Focus("", "")
	waitFor(t, "no control client", func() (bool, string) {
		a, b := clients(t, sockA), clients(t, sockB)
		return a == 0 && b == 0, fmt.Sprintf("feeda %d, feedb %d", a, b)
	})
}
