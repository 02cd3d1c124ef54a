package main_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestStatusWatchRedrawsOnChange runs `status --watch` into a pipe: it prints a
// frame, then a new one when a member exits and when the team goes down, and
// ends with exit 0 on SIGINT.
func TestStatusWatchRedrawsOnChange(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	layout := standInLayout(e, "team.yaml", `team: watched
lead: {}
members:
  - name: sleeper
    command: [sleep, "600"]
    restart: never
`)
	e.MustRun("up", layout)
	s := getStatus(t, e, "watched")

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // ends a hang; the waits below fail first
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, "status", "--watch", "--team", "watched")
	cmd.Env = e.Environ()
	cmd.Dir = e.Work
	var out, errOut safeBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill() // only if the test failed before the SIGINT
		<-exited
	}()

	// frames are what was printed so far, a blank line between two.
	frames := func() []string { return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n\n") }
	sleeperIs := func(state string) func() (bool, string) {
		return func() (bool, string) {
			fs := frames()
			for _, line := range strings.Split(fs[len(fs)-1], "\n") {
				if f := strings.Fields(line); len(f) > 4 && f[0] == "sleeper" {
					return f[4] == state, out.String() + errOut.String()
				}
			}
			return false, out.String() + errOut.String()
		}
	}
	testenv.Eventually(t, 15*time.Second, "a frame with sleeper running", sleeperIs("running"))
	syscall.Kill(s.Members[1].PID, syscall.SIGKILL)
	testenv.Eventually(t, 15*time.Second, "a later frame with sleeper exited", sleeperIs("exited"))
	e.MustRun("down", "--team", "watched", "--now")
	testenv.Eventually(t, 15*time.Second, "a frame saying the team is down", func() (bool, string) {
		fs := frames()
		return strings.Contains(fs[len(fs)-1], "team watched is down"), out.String() + errOut.String()
	})

	cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-exited:
		exited <- err // for the deferred clean-up
		var ee *exec.ExitError
		if errors.As(err, &ee) || err != nil {
			t.Fatalf("status --watch after SIGINT: %v\n%s", err, errOut.String())
		}
	case <-time.After(time.Minute): // generous: a loaded machine is slow
		t.Fatal("status --watch did not end on SIGINT")
	}

	// A pipe gets plain frames, each printed because something other than the
	// clock changed.
	got := out.String()
	if strings.Contains(got, "\x1b[") {
		t.Errorf("escape sequences in piped output:\n%q", got)
	}
	fs := frames()
	for i := 1; i < len(fs); i++ {
		_, prev, _ := strings.Cut(fs[i-1], "  ")
		_, cur, _ := strings.Cut(fs[i], "  ")
		if prev == cur {
			t.Errorf("frame %d repeats frame %d:\n%s", i, i-1, fs[i])
		}
	}
	if n := strings.Count(got, "team watched is down"); n != 1 {
		t.Errorf("the down team was shown %d times:\n%s", n, got)
	}
}

// TestStatusWatchOnATerminal: on a terminal each frame clears the screen and
// replaces the last, its columns aligned, and Ctrl-C ends it with exit 0.
func TestStatusWatchOnATerminal(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: tty\nlead: {}\nmembers:\n  - name: sleeper\n    command: [sleep, \"600\"]\n"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // ends a hang; the waits below fail first
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, "status", "-w", "--team", "tty")
	cmd.Env = append(e.Environ(), "TERM=xterm-256color")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 150})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := &ptyOutput{}
	go bytesCopy(out, f)
	const clear = "\x1b[H\x1b[2J"
	testenv.Eventually(t, 10*time.Second, "three frames, each clearing the screen", func() (bool, string) {
		s := out.String()
		return strings.Count(s, clear) >= 3 && strings.Contains(s[strings.LastIndex(s, clear):], "sleeper"), s
	})
	// A whole frame (one with another after it): its columns line up under
	// the headings although STATE is coloured.
	frames := strings.Split(strings.ReplaceAll(out.String(), "\r\n", "\n"), clear)
	checkStatusTable(t, "status -w", frames[len(frames)-2], 150)
	f.Write([]byte{0x03}) // Ctrl-C, through the terminal
	waitErr := make(chan error, 1)
	go func() { waitErr <- cmd.Wait() }()
	select {
	case err := <-waitErr:
		if err != nil {
			t.Errorf("status -w after Ctrl-C: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("status -w did not end on Ctrl-C")
	}
}
