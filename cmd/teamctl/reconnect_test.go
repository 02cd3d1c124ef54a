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
lead: {}
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

// TestAutoAnswerOncePerPrompt: with watchdog.answer for yes-no, a program that
// asks `Overwrite? (y/n)` and, a second later, `Continue?` gets exactly one
// answer: the echoed `y` does not make a new stall, and nothing is typed at
// Continue? (no rule matches it). A program that never reads its input is
// answered once too. The same question asked again is answered again.
func TestAutoAnswerOncePerPrompt(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: answer1
watchdog:
  quiet: 300ms
  answer: [{pattern: yes-no, keys: [y, Enter]}]
lead: {}
members:
  - name: asker
    command: [sh, -c, 'printf "Overwrite? (y/n) "; read a; echo "got [$a]"; sleep 1; printf "Continue? "; read b; echo "second [$b]"; exec sleep 1000']
  - name: deaf
    command: [sh, -c, 'printf "Overwrite? (y/n) "; exec sleep 1000']
  - name: twice
    command: [sh, -c, 'printf "Overwrite? (y/n) "; read a; printf "Overwrite? (y/n) "; read b; echo "both [$a$b]"; exec sleep 1000']
`))
	asker := waitMember(t, e, "answer1", "asker", 30*time.Second, func(m memberStatus) bool {
		return m.State == "stalled" && m.Stall != nil && m.Stall.Line == "Continue?"
	})
	waitScreen(t, e, "teamctl-answer1", asker.Pane, "got [y]")
	twice := member(statusOf(t, e, "answer1"), "twice")
	waitScreen(t, e, "teamctl-answer1", twice.Pane, "both [yy]")
	// The deaf member was answered long before asker reached Continue?; give the
	// supervisor one more look at every pane before counting.
	deaf := member(statusOf(t, e, "answer1"), "deaf")
	waitScreen(t, e, "teamctl-answer1", deaf.Pane, "Overwrite? (y/n) y")
	evs := events(t, e, "answer1")
	for name, want := range map[string]int{"asker": 1, "deaf": 1, "twice": 2} {
		if n := countEvents(evs, name, "answer"); n != want {
			t.Errorf("%s: %d answers, want %d: %+v", name, n, want, evs)
		}
	}
	if s := screen(e, "teamctl-answer1", asker.Pane); strings.Contains(s, "second [") {
		t.Errorf("keys reached Continue?, which no rule answers:\n%s", s)
	}
	if n := countEvents(evs, "deaf", "stall"); n != 1 {
		t.Errorf("deaf: %d stall events for one prompt", n)
	}
}
