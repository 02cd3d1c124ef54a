package relay

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/state"
)

const claudeTeam = "session-0123abcd"

// link runs a hub over hubDir and a spoke over spokeDir, joined by pipes,
// until the returned stop is called (a dropped connection).
func link(t *testing.T, hubDir, spokeDir string, events chan<- state.Event) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	hr, sw := io.Pipe() // spoke → hub
	sr, hw := io.Pipe() // hub → spoke
	var wg sync.WaitGroup
	wg.Add(2)
	logf := func(msg string, err error) { t.Logf("relay: %s: %v", msg, err) }
	go func() {
		defer wg.Done()
		Run(ctx, hr, hw, Options{ConfigDir: hubDir, ClaudeTeam: claudeTeam, Hub: true, Owned: []string{"far"},
			Event: func(e state.Event) { events <- e }, Poll: 10 * time.Millisecond, Log: logf})
		hw.Close()
	}()
	go func() {
		defer wg.Done()
		Run(ctx, sr, sw, Options{ConfigDir: spokeDir, Team: "t", Poll: 10 * time.Millisecond, Log: logf})
		sw.Close()
	}()
	return func() {
		cancel()
		hr.Close()
		sr.Close()
		wg.Wait()
	}
}

func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, seen := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20s; seen: %s", what, seen)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func texts(t *testing.T, dir, member string) []string {
	t.Helper()
	p, err := claudecode.InboxPath(dir, claudeTeam, member)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := claudecode.ReadMailbox(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		out = append(out, m.Text)
	}
	return out
}

func appendTo(t *testing.T, dir, member, from, text string) {
	t.Helper()
	p, _ := claudecode.InboxPath(dir, claudeTeam, member)
	if err := claudecode.AppendMessage(context.Background(), p, claudecode.Message{From: from, Text: text, Timestamp: claudecode.Timestamp(time.Now())}); err != nil {
		t.Fatal(err)
	}
}

// TestRelay: the hub's team config reaches the spoke; a message for the
// spoke's member moves there (out of the hub's copy), one the spoke's
// member wrote to the lead moves to the hub (out of the spoke's); a task
// changed on either side reaches the other; a hook event of the spoke's
// member reaches the hub, one naming a member of the hub's does not.
func TestRelay(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	hub, spoke := t.TempDir(), t.TempDir()
	cfg, _ := claudecode.TeamConfigPath(hub, claudeTeam)
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	if err := os.WriteFile(cfg, []byte(`{"name":"`+claudeTeam+`","members":[{"name":"team-lead"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	events := make(chan state.Event, 16)
	stop := link(t, hub, spoke, events)
	defer stop()

	eventually(t, "the config on the spoke", func() (bool, string) {
		p, _ := claudecode.TeamConfigPath(spoke, claudeTeam)
		b, _ := os.ReadFile(p)
		return strings.Contains(string(b), `"team-lead"`), string(b)
	})
	appendTo(t, hub, "far", "team-lead", "hello far")
	eventually(t, "the lead's message in far's mailbox on the spoke, out of the hub's copy", func() (bool, string) {
		there, here := texts(t, spoke, "far"), texts(t, hub, "far")
		return len(there) == 1 && there[0] == "hello far" && len(here) == 0, strings.Join(there, "|") + " / " + strings.Join(here, "|")
	})
	appendTo(t, spoke, "team-lead", "far", "done, lead")
	eventually(t, "far's message in the lead's mailbox on the hub, out of the spoke's copy", func() (bool, string) {
		here, there := texts(t, hub, "team-lead"), texts(t, spoke, "team-lead")
		return len(here) == 1 && here[0] == "done, lead" && len(there) == 0, strings.Join(here, "|") + " / " + strings.Join(there, "|")
	})

	if err := claudecode.WriteTaskCopy(spoke, claudeTeam, "1.json", []byte(`{"id":"1","status":"in_progress"}`)); err != nil {
		t.Fatal(err)
	}
	taskOn := func(dir string) string {
		b, _ := claudecode.TaskFileBytes(dir, claudeTeam)
		return string(b["1.json"])
	}
	eventually(t, "the spoke's task on the hub", func() (bool, string) {
		return strings.Contains(taskOn(hub), "in_progress"), taskOn(hub)
	})
	if err := claudecode.WriteTaskCopy(hub, claudeTeam, "1.json", []byte(`{"id":"1","status":"completed"}`)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the hub's change on the spoke", func() (bool, string) {
		return strings.Contains(taskOn(spoke), "completed"), taskOn(spoke)
	})

	ev, err := state.OpenEventLog("t")
	if err != nil {
		t.Fatal(err)
	}
	ev.Append(state.Event{Kind: state.EventHook, Member: "lead-here", Pane: "%1", Hook: "Stop"})
	ev.Append(state.Event{Kind: state.EventHook, Member: "far", Pane: "%3", Hook: "Stop"})
	ev.Close()
	select {
	case e := <-events:
		if e.Member != "far" || e.Pane != "%3" || e.Hook != "Stop" {
			t.Errorf("event %+v, want far's Stop from %%3", e)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no hook event on the hub")
	}
	select {
	case e := <-events:
		t.Errorf("another event: %+v", e)
	default:
	}
}

// TestRelayLosesNothingOnADrop: messages written while no relay runs, or
// sent and not acknowledged, arrive once the next one runs, each once.
func TestRelayLosesNothingOnADrop(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	hub, spoke := t.TempDir(), t.TempDir()
	cfg, _ := claudecode.TeamConfigPath(hub, claudeTeam)
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	os.WriteFile(cfg, []byte(`{"name":"x"}`), 0o600)
	events := make(chan state.Event, 16)
	appendTo(t, hub, "far", "team-lead", "one")
	// A delivery the spoke took but whose ack was lost: it is there already.
	p, _ := claudecode.InboxPath(spoke, claudeTeam, "far")
	hubMsgs, _ := claudecode.ReadMailbox(func() string { q, _ := claudecode.InboxPath(hub, claudeTeam, "far"); return q }())
	if _, err := claudecode.AppendNew(context.Background(), p, hubMsgs); err != nil {
		t.Fatal(err)
	}
	appendTo(t, hub, "far", "team-lead", "two")
	stop := link(t, hub, spoke, events)
	eventually(t, "both messages on the spoke, each once", func() (bool, string) {
		there := texts(t, spoke, "far")
		return strings.Join(there, "|") == "one|two" && len(texts(t, hub, "far")) == 0, strings.Join(there, "|")
	})
	stop()
	appendTo(t, hub, "far", "team-lead", "three")
	stop = link(t, hub, spoke, events)
	defer stop()
	eventually(t, "the message written while no relay ran", func() (bool, string) {
		there := texts(t, spoke, "far")
		return strings.Join(there, "|") == "one|two|three", strings.Join(there, "|")
	})
}
