package tmux

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	dir := t.TempDir()
	s := &Server{Socket: "rp"}
	t.Cleanup(func() { s.KillServer(context.Background()) })
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
	np, err := s.ReplacePane(ctx, "%1", dir, []string{"MARK=replaced"}, []string{"sh", "-c", `echo "$MARK in $PWD"; exec sleep 600`}, "web")
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
	if after.Member != "web" {
		t.Errorf("the new pane's @teamctl-member is %q, want web", after.Member)
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

// TestReplacePaneNamesThePaneInTheBatchThatMakesIt: the new pane's
// @teamctl-member is set by the same tmux invocation (one command file) that
// makes the pane, swaps it in and removes the old one, so that no relaunch cut
// short after tmux ran leaves a pane that does not say whose it is.
func TestReplacePaneNamesThePaneInTheBatchThatMakesIt(t *testing.T) {
	t.Parallel()
	tmuxPath, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not installed")
	}
	dir := t.TempDir()
	// A tmux that keeps a copy of every command file it is given.
	files := filepath.Join(dir, "files")
	wrapper := filepath.Join(dir, "tmux")
	script := "#!/bin/sh\nprev=\nfor a in \"$@\"; do\n\tif [ \"$prev\" = source-file ]; then { cat \"$a\"; echo; echo ===; } >>" + files + "; fi\n\tprev=$a\ndone\nexec " + tmuxPath + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	s := &Server{Socket: "rpb", Bin: wrapper}
	defer s.KillServer(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var b Batch
	b.Add("new-session", "-d", "-s", "t", "-x", "80", "-y", "20", "sleep", "600")
	if _, err := s.StartBatch(ctx, &b); err != nil {
		t.Fatal(err)
	}
	np, err := s.ReplacePane(ctx, "%0", dir, nil, []string{"sleep", "601"}, "web")
	if err != nil {
		t.Fatal(err)
	}
	if p := paneAt(t, s, np.ID); p.Member != "web" {
		t.Errorf("the new pane's @teamctl-member is %q, want web", p.Member)
	}
	data, err := os.ReadFile(files)
	if err != nil {
		t.Fatal(err)
	}
	var made string
	for _, f := range strings.Split(string(data), "===") {
		if strings.Contains(f, `"new-window"`) {
			made = f
		}
	}
	for _, want := range []string{`"@teamctl-member" "web"`, `"swap-pane"`, `"kill-pane"`} {
		if !strings.Contains(made, want) {
			t.Errorf("the command file that makes the pane has no %s:\n%s", want, made)
		}
	}
}
