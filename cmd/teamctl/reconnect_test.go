package main_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestSupervisorOutlivesAttachDetachingEveryone: a person attaches with
// `tmux attach -d` (detach every other client), which detaches the
// supervisor's control client too. The supervisor reconnects (a supervisor
// event says so), keeps running, and afterwards still catches a new stall and
// restarts a killed member.
func TestSupervisorOutlivesAttachDetachingEveryone(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	gate := filepath.Join(e.Work, "go")
	e.MustRun("up", standInLayout(e, "team.yaml", fmt.Sprintf(`team: detach
watchdog: {quiet: 300ms}
members:
  - name: asker
    command: [sh, -c, 'while [ ! -f %s ]; do sleep 0.05; done; printf "Overwrite? (y/n) "; read x; exec sleep 1000']
  - name: web
    command: [sleep, "1000"]
`, gate)))
	before := statusOf(t, e, "detach")
	if !before.Supervisor.Running {
		t.Fatal("no supervisor after up")
	}
	// Its control client is attached once it says it started.
	testenv.Eventually(t, 30*time.Second, "the supervisor's start event", func() (bool, string) {
		for _, ev := range events(t, e, "detach") {
			if ev.Kind == "supervisor" && strings.HasPrefix(ev.Detail, "started") {
				return true, ""
			}
		}
		return false, ""
	})

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tmux", "-L", "teamctl-detach", "attach-session", "-d", "-t", "=detach")
	cmd.Env = append(e.Environ(), "TERM=xterm-256color")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 150})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		f.Write([]byte{0x02, 'd'}) // detach: C-b d
		cmd.Wait()
		f.Close()
	}()
	out := &ptyOutput{}
	go bytesCopy(out, f)

	testenv.Eventually(t, 30*time.Second, "the supervisor to reconnect its control client", func() (bool, string) {
		for _, ev := range events(t, e, "detach") {
			if ev.Kind == "supervisor" && strings.Contains(ev.Detail, "reconnected") {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", events(t, e, "detach"))
	})
	s := statusOf(t, e, "detach")
	if !s.Supervisor.Running || s.Supervisor.PID != before.Supervisor.PID {
		t.Fatalf("supervisor after attach -d: %+v, was %+v", s.Supervisor, before.Supervisor)
	}

	e.WriteFile("go", "")
	m := waitMember(t, e, "detach", "asker", 30*time.Second, func(m memberStatus) bool { return m.State == "stalled" })
	if m.Stall == nil || m.Stall.Line != "Overwrite? (y/n)" {
		t.Errorf("stall: %+v", m.Stall)
	}
	web := member(s, "web")
	syscall.Kill(web.PID, syscall.SIGKILL)
	testenv.Eventually(t, 30*time.Second, "web's restart", func() (bool, string) {
		evs := events(t, e, "detach")
		return countEvents(evs, "web", "restart") == 1, fmt.Sprintf("%+v", evs)
	})
	waitMember(t, e, "detach", "web", 30*time.Second, func(m memberStatus) bool { return m.State == "running" && m.PID != web.PID })
}
