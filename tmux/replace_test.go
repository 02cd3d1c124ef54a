package tmux

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestReplacePaneSurvivesALaggingControlClient: a pane whose program prints
// a lot and ends while a control client reads a little slowly is relaunched
// with ReplacePane; the server lives (respawn-pane crashes it there: see
// replace.go), the new program runs in a new pane in the old one's place, in
// its folder with its env, and the old pane is gone.
func TestReplacePaneSurvivesALaggingControlClient(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	dir, err := os.MkdirTemp("", "rp")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	t.Setenv("TMUX_TMPDIR", dir)
	s := &Server{Socket: "rp"}
	defer s.KillServer(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var b Batch
	b.Add("set-option", "-g", "remain-on-exit", "on")
	b.Add("new-session", "-d", "-s", "t", "-x", "120", "-y", "40", "sleep", "600")
	b.Add("split-window", "-d", "-h", "-t", "%0", "-P", "-F", "#{pane_id}",
		"sh", "-c", `sleep 1; i=0; while [ $i -lt 400 ]; do printf "%0720d\n" 0; i=$((i+1)); done; exit 3`)
	if _, err := s.StartBatch(ctx, &b); err != nil {
		t.Fatal(err)
	}
	// A control client that reads its output a little slowly, as the
	// supervisor's gathers it.
	cc := exec.Command("tmux", "-L", "rp", "-C", "attach", "-t", "=t")
	in, _ := cc.StdinPipe()
	out, _ := cc.StdoutPipe()
	if err := cc.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cc.Process.Kill(); cc.Wait() }()
	go func() {
		buf := make([]byte, 64<<10)
		for {
			if _, err := out.Read(buf); err != nil {
				io.Copy(io.Discard, out)
				return
			}
			time.Sleep(20 * time.Millisecond) // reading slowly is the point here
		}
	}()
	before := paneAt(t, s, "%1")
	deadline := time.Now().Add(time.Minute)
	for {
		out, _ := s.Run(ctx, "display-message", "-p", "-t", "%1", "#{pane_dead}")
		if strings.TrimSpace(out) == "1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the printing pane never ended")
		}
		time.Sleep(20 * time.Millisecond) // poll interval of a condition wait
	}
	np, err := s.ReplacePane(ctx, "%1", dir, []string{"MARK=replaced"}, []string{"sh", "-c", `echo "$MARK in $PWD"; exec sleep 600`})
	if err != nil {
		t.Fatal(err)
	}
	if np.ID == "%1" || np.PID <= 0 || np.Window == "" {
		t.Fatalf("new pane %+v", np)
	}
	deadline = time.Now().Add(time.Minute)
	for {
		screen, err := s.CapturePane(ctx, np.ID)
		if err != nil {
			t.Fatalf("the server is gone after the relaunch: %v", err)
		}
		if strings.Contains(screen, "replaced in "+dir) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new program's screen:\n%s", screen)
		}
		time.Sleep(20 * time.Millisecond) // poll interval of a condition wait
	}
	after := paneAt(t, s, np.ID)
	if after.Left != before.Left || after.Top != before.Top || after.Window != before.Window {
		t.Errorf("the new pane is at %+v, the old one was at %+v", after, before)
	}
	panes, _ := s.ListPanes(ctx)
	for _, p := range panes {
		if p.ID == "%1" {
			t.Errorf("the old pane is still there")
		}
	}
	if len(panes) != 2 {
		t.Errorf("%d panes, want the first and the new one", len(panes))
	}
}

func paneAt(t *testing.T, s *Server, id string) Pane {
	t.Helper()
	panes, err := s.ListPanes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range panes {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("no pane %s", id)
	return Pane{}
}
