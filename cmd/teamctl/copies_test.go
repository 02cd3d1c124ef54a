package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/testenv"
)

// A relaunch cut short between tmux and state.json (the supervisor killed,
// a state folder that takes no new file) leaves a pane running a member that
// state.json does not record, named for it (@teamctl-member). These tests
// make such panes with real tmux and check that the team ends up with one
// run of the member, never two.

// secondRun makes, in team's session, a pane named for web (as a relaunch
// names its new pane, in the same tmux batch) that runs web's program as a
// relaunch would (TEAMCTL_MEMBER=web), and returns its pane and pid.
func secondRun(t *testing.T, e *testenv.Env, team string) (pane string, pid int) {
	t.Helper()
	session := getStatus(t, e, team).Session
	win := "copy-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	out, err := e.Tmux("teamctl-"+team,
		"new-window", "-d", "-t", "="+session+":", "-n", win, "-e", "TEAMCTL_MEMBER=web", "-P", "-F", "#{pane_id} #{pane_pid}", "exec sleep 1001", ";",
		"set-option", "-p", "-t", "="+session+":="+win, "@teamctl-member", "web")
	if err != nil {
		t.Fatalf("a second pane for web: %v %s", err, out)
	}
	if _, err := fmt.Sscan(out, &pane, &pid); err != nil || pid <= 0 {
		t.Fatalf("a second pane for web: tmux printed %q", out)
	}
	return pane, pid
}

// panesNamed are the panes of team's server named for member.
func panesNamed(t *testing.T, e *testenv.Env, team, member string) []string {
	t.Helper()
	out, err := e.Tmux("teamctl-"+team, "list-panes", "-a", "-F", "#{pane_id} #{@teamctl-member}")
	if err != nil {
		t.Fatalf("list-panes: %v %s", err, out)
	}
	var panes []string
	for _, ln := range strings.Split(strings.TrimSpace(out), "\n") {
		if id, name, _ := strings.Cut(ln, " "); name == member {
			panes = append(panes, id)
		}
	}
	return panes
}

// waitGone waits until pid has ended (and was reaped).
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	testenv.Eventually(t, time.Minute, what+" ended", func() (bool, string) {
		return !proc.Alive(pid), fmt.Sprintf("pid %d lives", pid)
	})
}

// checkOneWeb fails unless web runs once, as pid, in its one pane named web.
func checkOneWeb(t *testing.T, e *testenv.Env, team string, pid int, pane string) {
	t.Helper()
	testenv.Eventually(t, time.Minute, "one pane named web", func() (bool, string) {
		panes := panesNamed(t, e, team, "web")
		return slices.Equal(panes, []string{pane}), fmt.Sprint(panes)
	})
	if runs := webRuns(e); !slices.Equal(runs, []int{pid}) {
		t.Errorf("web runs as %v, want once, as pid %d", runs, pid)
	}
	if m := member(statusOf(t, e, team), "web"); m.PID != pid || m.Pane != pane || m.State != "running" {
		t.Errorf("status says web is %+v, want running as pid %d in %s", m, pid, pane)
	}
}

// TestSecondRunOfAMemberIsEnded: a second pane running web beside web's
// recorded one is ended by the supervisor (its process gone, its pane too, a
// duplicate event saying so in `teamctl events`), and, with no supervisor
// running, by `up`, which says so; web's recorded run is left alone.
func TestSecondRunOfAMemberIsEnded(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	layout := standInLayout(e, "team.yaml", "team: twice\nlead: {}\nmembers:\n  - name: web\n    command: [sleep, \"1000\"]\n")
	e.MustRun("up", layout)
	testenv.Eventually(t, time.Minute, "the supervisor running", func() (bool, string) {
		return statusOf(t, e, "twice").Supervisor.Running, ""
	})
	web := member(statusOf(t, e, "twice"), "web")

	pane, pid := secondRun(t, e, "twice")
	waitGone(t, pid, "the second run of web")
	want := fmt.Sprintf("pid %d: a second run of web in a pane the state does not record; ended", pid)
	testenv.Eventually(t, time.Minute, "the duplicate event in teamctl events", func() (bool, string) {
		out := e.MustRun("events", "--team", "twice").Stdout
		for _, ln := range strings.Split(out, "\n") {
			if strings.Contains(ln, " web ") && strings.Contains(ln, "duplicate") && strings.Contains(ln, want) {
				return true, ""
			}
		}
		return false, out
	})
	for _, ev := range events(t, e, "twice") {
		if ev.Kind == "duplicate" && ev.Pane != pane {
			t.Errorf("a duplicate event for pane %s, want %s: %+v", ev.Pane, pane, ev)
		}
	}
	checkOneWeb(t, e, "twice", web.PID, web.Pane)

	// With no supervisor, up ends it.
	sup := statusOf(t, e, "twice").Supervisor
	syscall.Kill(sup.PID, syscall.SIGKILL)
	waitGone(t, sup.PID, "the supervisor")
	pane, pid = secondRun(t, e, "twice")
	r := e.MustRun("up", layout)
	if want := fmt.Sprintf("web ran a second time, in pane %s, which teamctl did not record: ended", pane); !strings.Contains(r.Stdout, want) {
		t.Errorf("up does not say %q:\n%s", want, r.Stdout)
	}
	waitGone(t, pid, "the second run of web")
	checkOneWeb(t, e, "twice", web.PID, web.Pane)
}

// freezingTmux is a tmux that, while flag exists, makes dir take no new
// file (chattr +i: root too is refused, which file modes do not do) right
// after a command file holding swap-pane (a relaunch: the new pane made and
// named, the old one gone) has run, and removes flag: the state folder
// refuses the relaunch's record, as a full or read-only one does.
func freezingTmux(t *testing.T, e *testenv.Env, flag, dir string) string {
	t.Helper()
	tmuxPath, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not installed")
	}
	wrapper := e.WriteExecutable("tmux-freezer", fmt.Sprintf(`#!/bin/sh
%s "$@"
rc=$?
if [ -e %[2]s ]; then
	prev=
	for a in "$@"; do
		if [ "$prev" = source-file ] && grep -q swap-pane "$a"; then rm -f %[2]s; chattr +i %[3]s; fi
		prev=$a
	done
fi
exit $rc
`, tmuxPath, flag, dir))
	return wrapper
}

// TestRelaunchUnrecordedOnAFrozenStateFolder: the supervisor's relaunch of
// web whose record the state folder refuses (it takes no new file) leaves
// web running once, in its new pane; once the folder takes files again, `up`
// takes that pane as web's rather than starting a second web.
func TestRelaunchUnrecordedOnAFrozenStateFolder(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("chattr"); err != nil {
		t.Skip("chattr not found: cannot make a state folder that refuses new files")
	}
	e := testenv.New(t)
	dir := filepath.Join(e.StateHome, "teamctl", "frozen")
	probe := filepath.Join(e.Dir, "probe")
	if err := os.Mkdir(probe, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("chattr", "+i", probe).CombinedOutput(); err != nil {
		t.Skipf("chattr +i is not possible here: %v %s", err, out)
	}
	exec.Command("chattr", "-i", probe).Run()
	// Before the temp folder goes: it cannot while immutable.
	t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
	flag := filepath.Join(e.Dir, "freeze-after-relaunch")
	e.Extra = append(e.Extra, "TEAMCTL_TMUX="+freezingTmux(t, e, flag, dir), "TEAMCTL_RESTART_BACKOFF=100ms")
	layout := standInLayout(e, "team.yaml", "team: frozen\nlead: {}\nmembers:\n  - name: web\n    command: [sleep, \"1000\"]\n")
	e.MustRun("up", layout)
	testenv.Eventually(t, time.Minute, "the supervisor running", func() (bool, string) {
		return statusOf(t, e, "frozen").Supervisor.Running, ""
	})
	before := member(statusOf(t, e, "frozen"), "web")
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	syscall.Kill(before.PID, syscall.SIGKILL)
	var restart event
	testenv.Eventually(t, time.Minute, "web's restart on a frozen state folder", func() (bool, string) {
		evs := events(t, e, "frozen")
		for _, ev := range evs {
			if ev.Kind == "restart" && ev.Member == "web" {
				restart = ev
				return true, ""
			}
		}
		return false, fmt.Sprint(evs)
	})
	if _, err := os.Stat(flag); err == nil {
		t.Fatal("the state folder was not frozen in the relaunch: not the relaunch this test wants")
	}
	st, _ := readState(t, e, "frozen")
	for _, m := range st.Members {
		if m.Name == "web" && m.Pane != before.Pane {
			t.Fatalf("state records web in %s, its relaunch's pane: not the unrecorded relaunch this test wants", m.Pane)
		}
	}
	runs := webRuns(e)
	if len(runs) != 1 || runs[0] == before.PID || restart.Pane == before.Pane {
		t.Fatalf("after web's unrecorded relaunch (in %s): web runs as %v (was pid %d)", restart.Pane, runs, before.PID)
	}

	if out, err := exec.Command("chattr", "-i", dir).CombinedOutput(); err != nil {
		t.Fatalf("chattr -i: %v %s", err, out)
	}
	r := e.MustRun("up", layout)
	if !strings.Contains(r.Stdout, "taken as its pane") {
		t.Errorf("up does not say it took web's unrecorded pane:\n%s", r.Stdout)
	}
	checkOneWeb(t, e, "frozen", runs[0], restart.Pane)
	if n := countEvents(events(t, e, "frozen"), "web", "duplicate"); n != 0 {
		t.Errorf("%d duplicate events: a run of web was ended", n)
	}
}
