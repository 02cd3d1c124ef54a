package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/testenv"
)

// Nothing an agent writes becomes a program run: agents run as the user and
// can rewrite teamctl's own state.json. These tests write what an agent would
// and check what runs.

// editState rewrites team's state.json as an agent with a Bash tool could.
func editState(t *testing.T, e *testenv.Env, team string, fn func(st map[string]any)) {
	t.Helper()
	// Under the team's lock, as every writer of state.json works: the
	// supervisor's own update (a relaunch's pid, say) would else put back
	// the record it read a moment before.
	lock, err := os.OpenFile(filepath.Join(e.StateHome, "teamctl", team, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(e.StateHome, "teamctl", team, "state.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	fn(st)
	if b, err = json.Marshal(st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p+".edit", b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p+".edit", p); err != nil {
		t.Fatal(err)
	}
}

// editMember rewrites member name's record in a state.json being edited.
func editMember(st map[string]any, name string, fn func(m map[string]any)) {
	for _, m := range st["members"].([]any) {
		if m := m.(map[string]any); m["name"] == name {
			fn(m)
		}
	}
}

// hostileLaunch makes web's record run a program of the agent's, with an
// environment of its own: what a relaunch must never run.
func hostileLaunch(marker string) func(st map[string]any) {
	return func(st map[string]any) {
		editMember(st, "web", func(m map[string]any) {
			m["argv"] = []any{"/bin/sh", "-c", "touch " + marker + "; exec sleep 1000"}
			m["env"] = append(m["env"].([]any), "PWNED=1")
		})
	}
}

// checkRunsTheLayout fails unless pid runs web as the layout says (sleep
// 1000) without the environment state.json was given.
func checkRunsTheLayout(t *testing.T, pid int, marker string) {
	t.Helper()
	argv, _ := proc.Cmdline(pid)
	env, _ := proc.Environ(pid)
	if len(argv) != 2 || filepath.Base(argv[0]) != "sleep" || argv[1] != "1000" || env["PWNED"] != "" || env["TEAMCTL_MEMBER"] != "web" {
		t.Errorf("web relaunched as %q with PWNED=%q, want the layout's sleep 1000", argv, env["PWNED"])
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the program state.json named ran (%s exists)", marker)
	}
}

// TestRelaunchRunsTheLayoutNotState: an argv and env written into
// state.json for a member run neither by `teamctl restart` nor by the
// supervisor's restart after an exit: both relaunch it as the layout says.
func TestRelaunchRunsTheLayoutNotState(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.Extra = append(e.Extra, "TEAMCTL_RESTART_BACKOFF=100ms")
	e.MustRun("up", standInLayout(e, "team.yaml", "team: norun\nlead: {}\nmembers:\n  - name: web\n    command: [sleep, \"1000\"]\n"))
	marker := filepath.Join(e.Dir, "pwned")

	editState(t, e, "norun", hostileLaunch(marker))
	before := member(statusOf(t, e, "norun"), "web")
	e.MustRun("restart", "web", "--team", "norun")
	now := waitMember(t, e, "norun", "web", time.Minute, func(m memberStatus) bool { return m.State == "running" && m.PID != before.PID })
	checkRunsTheLayout(t, now.PID, marker)

	// The supervisor's restart after an exit.
	testenv.Eventually(t, time.Minute, "the supervisor", func() (bool, string) { return statusOf(t, e, "norun").Supervisor.Running, "" })
	editState(t, e, "norun", hostileLaunch(marker))
	syscall.Kill(now.PID, syscall.SIGKILL)
	again := waitMember(t, e, "norun", "web", time.Minute, func(m memberStatus) bool { return m.State == "running" && m.PID != now.PID && m.PID > 0 })
	checkRunsTheLayout(t, again.PID, marker)
}

// TestEditedLeadSessionReachesNoArgv: a lost team whose state.json says
// lead_session_id: --dangerously-skip-permissions (with a transcript by that
// name, so that it would be resumed) is not brought back with it: up refuses,
// naming the file and the field, and nothing runs with that flag.
func TestEditedLeadSessionReachesNoArgv(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	layout := standInLayout(e, "team.yaml", "team: flagged\nmembers:\n  - name: mate\n")
	e.MustRun("up", layout)
	reboot(t, e, "flagged")
	const bad = "--dangerously-skip-permissions"
	editState(t, e, "flagged", func(st map[string]any) { st["lead_session_id"] = bad })
	conversation(t, e, bad)
	r := e.Run("up", layout)
	if r.Code == 0 || !strings.Contains(r.Stderr, "lead_session_id") || !strings.Contains(r.Stderr, "state.json") {
		t.Errorf("up with an edited lead_session_id: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, pid := range proc.Matching(func(env map[string]string) bool { return env["TMUX_TMPDIR"] == e.TmuxTmpDir }) {
		if argv, _ := proc.Cmdline(pid); slices.ContainsFunc(argv, func(a string) bool { return strings.Contains(a, bad) }) {
			t.Errorf("pid %d runs %q", pid, argv)
		}
	}
}

// killerTmux is a tmux that, while flag exists, SIGKILLs the teamctl that
// ran it right after a command file holding swap-pane (a relaunch: the new
// pane made, the old one gone) has run, and removes flag: a relaunch cut
// short between tmux and state.json.
func killerTmux(t *testing.T, e *testenv.Env, flag string) string {
	t.Helper()
	tmuxPath, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not installed")
	}
	wrapper := e.WriteExecutable("tmux-killer", fmt.Sprintf(`#!/bin/sh
%s "$@"
rc=$?
if [ -e %[2]s ]; then
	prev=
	for a in "$@"; do
		if [ "$prev" = source-file ] && grep -q swap-pane "$a"; then rm -f %[2]s; kill -9 $PPID; fi
		prev=$a
	done
fi
exit $rc
`, tmuxPath, flag))
	return wrapper
}

// webRuns are the processes of this test's world that run web.
func webRuns(e *testenv.Env) []int {
	return proc.Matching(func(env map[string]string) bool {
		return env["TMUX_TMPDIR"] == e.TmuxTmpDir && env["TEAMCTL_MEMBER"] == "web"
	})
}

// TestRelaunchCutShortIsAdopted: the supervisor SIGKILLed between making a
// member's new pane and recording it leaves web running in a pane state.json
// does not know; `up` then takes that pane as web's rather than starting a
// second web.
func TestRelaunchCutShortIsAdopted(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	flag := filepath.Join(e.Dir, "kill-after-relaunch")
	e.Extra = append(e.Extra, "TEAMCTL_TMUX="+killerTmux(t, e, flag), "TEAMCTL_RESTART_BACKOFF=100ms")
	layout := standInLayout(e, "team.yaml", "team: cut\nlead: {}\nmembers:\n  - name: web\n    command: [sleep, \"1000\"]\n")
	e.MustRun("up", layout)
	sup := statusOf(t, e, "cut").Supervisor
	if !sup.Running {
		t.Fatal("no supervisor")
	}
	before := member(statusOf(t, e, "cut"), "web")
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	syscall.Kill(before.PID, syscall.SIGKILL)
	testenv.Eventually(t, time.Minute, "the supervisor killed in its relaunch of web", func() (bool, string) {
		_, err := os.Stat(flag)
		return err != nil && !proc.Alive(sup.PID), fmt.Sprint(err)
	})
	st, _ := readState(t, e, "cut")
	var recorded string
	for _, m := range st.Members {
		if m.Name == "web" {
			recorded = m.Pane
		}
	}
	if recorded != before.Pane || len(webRuns(e)) != 1 {
		t.Fatalf("state records web in %s (was %s), %d runs of web: not the cut-short relaunch this test wants", recorded, before.Pane, len(webRuns(e)))
	}

	r := e.MustRun("up", layout)
	if !strings.Contains(r.Stdout, "taken as its pane") {
		t.Errorf("up does not say it took web's unrecorded pane:\n%s", r.Stdout)
	}
	now := waitMember(t, e, "cut", "web", time.Minute, func(m memberStatus) bool { return m.State == "running" })
	if runs := webRuns(e); len(runs) != 1 || runs[0] != now.PID || now.Pane == before.Pane {
		t.Errorf("after up: web runs as %v; status says pid %d in %s (its old pane %s)", runs, now.PID, now.Pane, before.Pane)
	}
	if out, _ := e.Tmux("teamctl-cut", "list-panes", "-a", "-F", "#{@teamctl-member}"); strings.Count(out, "web\n") != 1 {
		t.Errorf("panes named for web after up:\n%s", out)
	}
}

// TestUpAllTakesOnlyTheLayoutItWasBroughtUpFrom: after a reboot, `up --all`
// brings back a team whose layout file is as it was at up, and passes by one
// whose file changed since (an agent edited web's command), one whose
// state.json points at another file (an agent's layout of the same team), and
// one whose file anyone may now write — running nothing of theirs, each said
// with the file to look at. status and teams say so too rather than
// recommending `teamctl up FILE` blindly; `teamctl up FILE`, the person
// naming it, brings such a team back.
func TestUpAllTakesOnlyTheLayoutItWasBroughtUpFrom(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	marker := filepath.Join(e.Dir, "pwned")
	body := func(team, cmd string) string {
		return fmt.Sprintf("team: %s\nlead: {}\nmembers:\n  - name: web\n    command: %s\n", team, cmd)
	}
	const sleep = `[sleep, "1000"]`
	hostile := fmt.Sprintf(`[sh, -c, "touch %s; exec sleep 1000"]`, marker)
	layouts := map[string]string{}
	for _, team := range []string{"kept", "edited", "pointed", "opened"} {
		layouts[team] = standInLayout(e, team+".yaml", body(team, sleep))
		e.MustRun("up", layouts[team])
	}
	for team := range layouts {
		reboot(t, e, team)
	}
	standInLayout(e, "edited.yaml", body("edited", hostile))
	agents := standInLayout(e, "agents.yaml", body("pointed", hostile))
	editState(t, e, "pointed", func(st map[string]any) { st["layout_path"] = agents })
	if err := os.Chmod(layouts["opened"], 0o666); err != nil {
		t.Fatal(err)
	}

	r := e.Run("up", "--all")
	if r.Code == 0 || !strings.Contains(r.Stderr, "3 of 4 lost teams could not be brought back") {
		t.Errorf("up --all: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for team, why := range map[string]string{
		"edited":  "layout " + layouts["edited"] + " changed since the team was brought up from it",
		"pointed": "layout " + agents + " changed since the team was brought up from it",
		"opened":  "layout " + layouts["opened"] + " is writable by everyone",
	} {
		if !strings.Contains(r.Stderr, "team "+team+": "+why) || !strings.Contains(r.Stderr, "`teamctl up "+layoutOf(team, layouts, agents)+"` brings the team back") {
			t.Errorf("up --all does not say why %s was passed by (%s):\n%s", team, why, r.Stderr)
		}
		out := e.MustRun("status", "--team", team).Stdout
		if !strings.Contains(out, "team "+team+" is down (lost") {
			t.Errorf("%s came back:\n%s", team, out)
		}
		if !strings.Contains(out, why) || !strings.Contains(out, "look at it, then `teamctl up "+layoutOf(team, layouts, agents)+"`") {
			t.Errorf("status of %s does not say its layout is not the one it was brought up from:\n%s", team, out)
		}
	}
	if _, err := os.Stat(marker); err == nil || len(webRuns(e)) != 1 {
		t.Errorf("a command of a layout nobody named ran (%d runs of web, %v)", len(webRuns(e)), err)
	}
	if s := statusOf(t, e, "kept"); !s.Supervisor.Running || !live(member(s, "web").State) {
		t.Errorf("kept after up --all: %+v", s)
	}
	teams := e.MustRun("teams")
	if !strings.Contains(teams.Stderr, "team edited was not brought down but its tmux server is gone; layout "+layouts["edited"]+" changed since") {
		t.Errorf("teams does not say edited's layout changed:\n%s", teams.Stderr)
	}
	var js []struct {
		Team          string `json:"team"`
		LayoutProblem string `json:"layout_problem"`
	}
	json.Unmarshal([]byte(e.MustRun("teams", "--json").Stdout), &js)
	for _, j := range js {
		if (j.Team == "kept") != (j.LayoutProblem == "") {
			t.Errorf("teams --json: %+v", j)
		}
	}

	// Named by the person, the edited layout is theirs: up runs it.
	e.MustRun("up", layouts["opened"])
	if s := statusOf(t, e, "opened"); !s.Supervisor.Running || !live(member(s, "web").State) {
		t.Errorf("opened after `teamctl up FILE`: %+v", s)
	}
}

// layoutOf is the layout file state.json names for team in
// TestUpAllTakesOnlyTheLayoutItWasBroughtUpFrom.
func layoutOf(team string, layouts map[string]string, agents string) string {
	if team == "pointed" {
		return agents
	}
	return layouts[team]
}

// TestRestartOfAWorktreeMemberStaysInItsWorktree: a teammate with its own
// worktree, relaunched by `teamctl restart` from the layout's plan, runs in
// its worktree again (the folder only the record holds); a record moving it
// out of its worktree is refused.
func TestRestartOfAWorktreeMemberStaysInItsWorktree(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	repo := gitRepo(t, e, "repo")
	e.MustRun("up", standInLayout(e, "team.yaml", fmt.Sprintf("team: wt\nroot: %s\nmembers:\n  - name: mate\n    worktree: true\n", repo)))
	before := member(statusOf(t, e, "wt"), "mate")
	if !strings.Contains(before.Cwd, filepath.Join("wt", "mate")) {
		t.Fatalf("mate runs in %s, not in its worktree", before.Cwd)
	}
	e.MustRun("restart", "mate", "--team", "wt")
	now := waitMember(t, e, "wt", "mate", time.Minute, func(m memberStatus) bool { return m.State != "exited" && m.PID != before.PID && m.PID > 0 })
	if cwd, _ := proc.Cwd(now.PID); cwd != before.Cwd {
		t.Errorf("mate relaunched in %s, want its worktree %s", cwd, before.Cwd)
	}
	editState(t, e, "wt", func(st map[string]any) {
		editMember(st, "mate", func(m map[string]any) { m["cwd"] = e.Work })
	})
	if r := e.Run("restart", "mate", "--team", "wt"); r.Code == 0 || !strings.Contains(r.Stderr, "is not in its worktree") {
		t.Errorf("restart with mate's folder moved out of its worktree: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}
