package main_test

// The crash-loop tests: each takes seconds whatever the backoff (tmux reports
// a pane's exit at most once a second), so they sit in a file whose tests
// start first among the package's parallel ones, not last.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestRestartWithBackoffThenFailed: a member that keeps dying is restarted in
// its pane with growing delays, and past 5 exits in 2 minutes is failed.
func TestRestartWithBackoffThenFailed(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	// The schedule at a tenth of its real scale (1s, 2s, … is
	// supervisor.TestBackoffDoublesThenFailed's, on a fake clock), so this
	// whole crash loop takes seconds, not half a minute.
	const base = 100 * time.Millisecond
	e.Extra = append(e.Extra, "TEAMCTL_RESTART_BACKOFF="+base.String())
	e.MustRun("up", standInLayout(e, "team.yaml", `team: crash
members:
  - name: doomed
    command: [sh, -c, "sleep 0.1; exit 3"]
  - name: steady
    env: {TEAMCTL_STANDIN_SCRIPT: "busy"}
`))
	m := waitMember(t, e, "crash", "doomed", 90*time.Second, func(m memberStatus) bool { return m.State == "failed" })
	if m.Restarts != 5 || !strings.Contains(m.Reason, "not restarting") {
		t.Errorf("failed member: %+v", m)
	}
	var restarts, exits []time.Time
	for _, ev := range events(t, e, "crash") {
		switch {
		case ev.Member == "doomed" && ev.Kind == "restart":
			restarts = append(restarts, ev.Time)
		case ev.Member == "doomed" && ev.Kind == "exit":
			exits = append(exits, ev.Time)
			// tmux sometimes never learns the status of a program that dies the
			// instant it is respawned; then the code is unknown, never wrong.
			if ev.ExitCode != nil && *ev.ExitCode != 3 {
				t.Errorf("exit event with a code other than 3: %+v", ev)
			}
			if len(exits) == 1 && ev.ExitCode == nil {
				t.Errorf("first exit event without its code: %+v", ev)
			}
		}
	}
	if len(restarts) != 5 || len(exits) != 6 {
		t.Fatalf("%d restarts, %d exits", len(restarts), len(exits))
	}
	// Each restart waits at least its backoff, which doubles: the supervisor
	// schedules it so (its log says when), and the events show it waited.
	// How much later than that it comes is the machine's speed (the pane's
	// last words are read first), not the schedule's.
	logged, err := os.ReadFile(filepath.Join(e.StateHome, "teamctl", "crash", "supervisor.log"))
	if err != nil {
		t.Fatal(err)
	}
	var scheduled []string
	for _, m := range regexp.MustCompile(`msg="restart scheduled" team=crash member=doomed in=(\S+)`).FindAllStringSubmatch(string(logged), -1) {
		scheduled = append(scheduled, m[1])
	}
	if want := []string{"100ms", "200ms", "400ms", "800ms", "1.6s"}; strings.Join(scheduled, " ") != strings.Join(want, " ") {
		t.Errorf("restarts scheduled in %v, want %v", scheduled, want)
	}
	for i, r := range restarts {
		want := base << i
		if gap := r.Sub(exits[i]); gap < want-50*time.Millisecond {
			t.Errorf("restart %d came %s after the exit, before its backoff of %s", i+1, gap, want)
		}
	}
	if s := member(statusOf(t, e, "crash"), "steady"); s.State != "working" || s.Restarts != 0 {
		t.Errorf("steady: %+v", s)
	}
}

// flakyLayout has a member that crashes (exit 3) until a file "ok" exists in
// the work folder, then runs. It lives a moment before it crashes: tmux may
// never learn the status of a program that dies the instant it starts.
func flakyLayout(e *testenv.Env, team string) string {
	return standInLayout(e, "team.yaml", fmt.Sprintf(`team: %s
members:
  - name: flaky
    command: [sh, -c, "test -f %s && exec sleep 1000; sleep 0.1; exit 3"]
  - name: steady
    env: {TEAMCTL_STANDIN_SCRIPT: "busy"}
`, team, filepath.Join(e.Work, "ok")))
}

// crashLoop makes flaky fail: the file goes, its process is killed, and the
// supervisor restarts it until it gives up.
func crashLoop(t *testing.T, e *testenv.Env, team string) memberStatus {
	t.Helper()
	os.Remove(filepath.Join(e.Work, "ok"))
	if m := member(statusOf(t, e, team), "flaky"); m.State == "running" {
		syscall.Kill(m.PID, syscall.SIGTERM)
	}
	return waitMember(t, e, team, "flaky", 60*time.Second, func(m memberStatus) bool { return m.State == "failed" })
}

// healed checks that flaky runs after a relaunch and is a normal member again:
// status says running (not failed), and when its process is killed the
// supervisor reports the exit and restarts it.
func healed(t *testing.T, e *testenv.Env, team, how string) {
	t.Helper()
	m := waitMember(t, e, team, "flaky", 20*time.Second, func(m memberStatus) bool { return m.State == "running" })
	restarts := countEvents(events(t, e, team), "flaky", "restart")
	exits := countEvents(events(t, e, team), "flaky", "exit")
	syscall.Kill(m.PID, syscall.SIGTERM)
	testenv.Eventually(t, 30*time.Second, "the supervisor to report the exit and restart flaky after "+how, func() (bool, string) {
		evs := events(t, e, team)
		s := member(statusOf(t, e, team), "flaky")
		return countEvents(evs, "flaky", "exit") > exits && countEvents(evs, "flaky", "restart") > restarts && s.State == "running" && s.PID != m.PID,
			fmt.Sprintf("%+v; %d exits, %d restarts", s, countEvents(evs, "flaky", "exit"), countEvents(evs, "flaky", "restart"))
	})
}

// TestFailedMemberRelaunchedStartsAfresh: a member failed by its crash loop and
// then relaunched — by `up`, by `teamctl restart`, and by `up` after the
// supervisor was killed while it was failed — is running again in status, and
// its later exits are reported and restarted as for any member.
func TestFailedMemberRelaunchedStartsAfresh(t *testing.T) {
	t.Parallel()
	// Each way in a team of its own, at the same time. A crash loop takes a
	// second an exit whatever the backoff (tmux reports a pane's exit about
	// once a second): failed after its third here, not its sixth
	// (TestRestartWithBackoffThenFailed has the whole loop).
	start := func(t *testing.T, team string) (*testenv.Env, string) {
		t.Parallel()
		e := testenv.New(t)
		e.Extra = append(e.Extra, "TEAMCTL_RESTART_BACKOFF=10ms", "TEAMCTL_RESTART_LIMIT=2")
		layout := flakyLayout(e, team)
		e.MustRun("up", layout)
		if m := crashLoop(t, e, team); m.Restarts != 2 || !strings.Contains(m.Reason, "exited 3 times") {
			t.Errorf("failed after TEAMCTL_RESTART_LIMIT=2: %+v", m)
		}
		return e, layout
	}
	t.Run("up", func(t *testing.T) {
		e, layout := start(t, "phoenix2")
		e.WriteFile("ok", "")
		e.MustRun("up", layout)
		healed(t, e, "phoenix2", "up")
		if m := member(statusOf(t, e, "phoenix2"), "steady"); m.State != "working" || m.Restarts != 0 {
			t.Errorf("steady: %+v", m)
		}
	})
	t.Run("teamctl restart", func(t *testing.T) {
		e, _ := start(t, "phoenix3")
		e.WriteFile("ok", "")
		r := e.MustRun("restart", "flaky", "--team", "phoenix3")
		if !strings.Contains(r.Stdout, "restarted flaky") {
			t.Errorf("restart said %q", r.Stdout)
		}
		healed(t, e, "phoenix3", "teamctl restart")
	})
	t.Run("up after the supervisor died", func(t *testing.T) {
		e, layout := start(t, "phoenix4")
		s := statusOf(t, e, "phoenix4")
		syscall.Kill(s.Supervisor.PID, syscall.SIGKILL)
		testenv.Eventually(t, 10*time.Second, "the supervisor to be gone", func() (bool, string) {
			return !statusOf(t, e, "phoenix4").Supervisor.Running, ""
		})
		e.WriteFile("ok", "")
		e.MustRun("up", layout)
		healed(t, e, "phoenix4", "up with a new supervisor")
	})
}
