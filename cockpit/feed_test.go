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
)

// source is the real teamctl's Source but for the status, which names the
// panes of a tmux server the test made, and counts the looks.
type source struct {
	Teamctl
	panes []string
	looks atomic.Int32
}

func (s *source) Status(ctx context.Context, team string) (*Snapshot, error) {
	s.looks.Add(1)
	st := &Status{Team: team}
	for i, p := range s.panes {
		st.Members = append(st.Members, Member{Name: fmt.Sprint("m", i), Pane: p, State: "running"})
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
	dir, err := state.EnsureDir(team)
	if err != nil {
		t.Fatal(err)
	}
	first := tmuxOn(t, socket, "new-session", "-d", "-s", team, "-x", "100", "-y", "30", "-P", "-F", "#{pane_id}", "sh", "-c", "echo FIRST-SCREEN; exec cat")
	tmuxOn(t, socket, "set-option", "-g", "remain-on-exit", "on")
	second := tmuxOn(t, socket, "split-window", "-t", first, "-P", "-F", "#{pane_id}", "sh", "-c", "while :; do echo noise; sleep 0.05; done")

	src := &source{panes: []string{first, second}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := NewFeed(ctx, src, "")
	var got inbox
	f.Start(got.send)
	f.Focus(first)
	f.Follow(team)
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
	f.Focus(second)
	waitFor(t, "the second pane's screen once focused", screenHas(second, "noise"))

	// Back to the first, quiet now: captured at once all the same.
	n := len(got.all())
	f.Focus(first)
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
