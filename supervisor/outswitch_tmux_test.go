package supervisor

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/teamctl/teamctl/tmux"
)

// TestOutputSwitchOnTmux: the switch worker's commands, as a real tmux 3.3
// takes them on a control client: two panes printing every 20 ms, both
// switched off in one refresh-client, notify nothing more; one switched on
// again notifies its output, the other stays silent. Then (not with -short)
// both are switched off and on again and again, as probes do, and the server
// lives on (tmux 3.3a's off and on kill it within a few rounds).
func TestOutputSwitchOnTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	dir, err := os.MkdirTemp("", "tmx") // short: a socket's path has a length limit
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMUX_TMPDIR", dir)
	srv := &tmux.Server{Socket: "outswitch"}
	t.Cleanup(func() { srv.KillServer(context.Background()); os.RemoveAll(dir) })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const printer = "while :; do echo tick; sleep 0.02; done"
	var b tmux.Batch
	b.Add("new-session", "-d", "-s", "w", "-x", "80", "-y", "24", "/bin/sh", "-c", printer)
	b.Add("split-window", "-t", "=w:", "/bin/sh", "-c", printer)
	if _, err := srv.StartBatch(ctx, &b); err != nil {
		t.Fatal(err)
	}
	c, err := srv.Control(ctx, "=w")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := &daemon{log: slog.New(slog.NewTextHandler(io.Discard, nil))}

	// seen reads notifications for d and counts each pane's output.
	seen := func(d time.Duration) map[string]int {
		n := map[string]int{}
		end := time.After(d)
		for {
			select {
			case note := <-c.Notes():
				if note.Kind == "output" {
					n[note.Pane]++
				}
			case <-end:
				return n
			case <-ctx.Done():
				t.Fatal(ctx.Err())
			}
		}
	}
	waitFor := func(what string, cond func(map[string]int) bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); ; {
			n := seen(300 * time.Millisecond) // a window many times the panes' 20 ms
			if cond(n) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: output in the last window %v", what, n)
			}
		}
	}
	waitFor("both panes print", func(n map[string]int) bool { return n["%0"] > 0 && n["%1"] > 0 })
	s.switchOutput(ctx, []switchReq{{ctl: c, pane: "%0"}, {ctl: c, pane: "%1"}})
	// What tmux sent before it took the command may still come: then nothing.
	waitFor("both switched off", func(n map[string]int) bool { return n["%0"] == 0 && n["%1"] == 0 })
	if n := seen(500 * time.Millisecond); n["%0"] != 0 || n["%1"] != 0 {
		t.Fatalf("output of panes switched off: %v", n)
	}
	s.switchOutput(ctx, []switchReq{{ctl: c, pane: "%0", on: true}})
	waitFor("%0 switched on", func(n map[string]int) bool { return n["%0"] > 0 && n["%1"] == 0 })
	if testing.Short() {
		return // the rounds below take seconds
	}
	for i := range 60 {
		s.switchOutput(ctx, []switchReq{{ctl: c, pane: "%0"}, {ctl: c, pane: "%1"}})
		seen(time.Duration(i%4) * 10 * time.Millisecond)
		s.switchOutput(ctx, []switchReq{{ctl: c, pane: "%0", on: true}, {ctl: c, pane: "%1", on: true}})
		seen(time.Duration(i%3) * 10 * time.Millisecond)
	}
	if lines, err := c.Command(ctx, "display-message", "-p", "#{session_name}"); err != nil || len(lines) != 1 || lines[0] != "w" {
		t.Fatalf("after 60 rounds of switches the server answers %q, %v", lines, err)
	}
	waitFor("both switched on", func(n map[string]int) bool { return n["%0"] > 0 && n["%1"] > 0 })
}
