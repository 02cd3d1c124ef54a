package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/testenv"
)

// goRunCopy puts a copy of the test's teamctl where `go run` builds it (a
// go-build folder under a temp dir), so a test can run it as `go run` would
// and then delete it, as `go run` does when it exits.
func goRunCopy(t *testing.T, e *testenv.Env, build string) string {
	t.Helper()
	return copyTeamctl(t, e, filepath.Join(build, "b001", "exe", "teamctl"))
}

// copyTeamctl copies the test's teamctl to rel under a temp dir. cp does the
// writing: a write descriptor open in this (parallel) test process would be
// inherited by any child forked meanwhile and make exec of the copy fail with
// "text file busy" (ETXTBSY, golang/go#22315).
func copyTeamctl(t *testing.T, e *testenv.Env, rel string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "cp", "--", e.Bin, p).CombinedOutput(); err != nil {
		t.Fatalf("cp %s: %v: %s", e.Bin, err, out)
	}
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// runBin runs another teamctl binary in e's world, as e.Run runs e.Bin.
func runBin(t *testing.T, e *testenv.Env, bin string, args ...string) testenv.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env, cmd.Dir = e.Environ(), e.Work
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	r := testenv.Result{Stdout: so.String(), Stderr: se.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.Code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s %v: %v", bin, args, err)
	}
	if r.Code != 0 {
		t.Fatalf("%s %s: exit %d\nstdout:\n%s\nstderr:\n%s", bin, strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// hookCommands are the commands of every hook in a Claude Code argv's --settings.
func hookCommands(t *testing.T, argv []string) []string {
	t.Helper()
	var value string
	for i, a := range argv {
		if a == "--settings" && i+1 < len(argv) {
			value = argv[i+1]
		}
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	if err := json.Unmarshal([]byte(value), &s); err != nil {
		t.Fatalf("--settings of %q: %v", argv, err)
	}
	var out []string
	for _, entries := range s.Hooks {
		for _, en := range entries {
			for _, h := range en.Hooks {
				out = append(out, h.Command)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no hook commands in --settings %s", value)
	}
	return out
}

// checkTeamctlStays checks that the team's lead (pid) names in its hooks a
// teamctl that exists, is no go-build file, and that the team's supervisor runs
// from a file that was not deleted. It returns the hooks' command.
func checkTeamctlStays(t *testing.T, e *testenv.Env, team string, pid int) string {
	t.Helper()
	argv, err := proc.Cmdline(pid)
	if err != nil {
		t.Fatal(err)
	}
	cmds := hookCommands(t, argv)
	hook := cmds[0]
	for _, c := range cmds {
		if c != hook {
			t.Fatalf("hooks call different commands: %q", cmds)
		}
	}
	quoted, ok := strings.CutSuffix(hook, " hook")
	if !ok || len(quoted) < 2 || quoted[0] != '\'' || quoted[len(quoted)-1] != '\'' {
		t.Fatalf("hook command %q is not '<teamctl>' hook", hook)
	}
	self := quoted[1 : len(quoted)-1]
	if strings.Contains(self, "go-build") {
		t.Errorf("the hooks call a go-build binary: %s", self)
	}
	if fi, err := os.Stat(self); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o100 == 0 {
		t.Fatalf("the hooks' teamctl %s is not an executable file: %v %v", self, fi, err)
	}

	var st struct {
		Supervisor struct {
			Running bool
			PID     int
		}
	}
	json.Unmarshal([]byte(e.MustRun("status", "--json", "--team", team).Stdout), &st)
	if !st.Supervisor.Running {
		t.Fatal("no supervisor")
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", st.Supervisor.PID))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(exe, " (deleted)") || strings.Contains(exe, "go-build") {
		t.Errorf("the supervisor runs from %s", exe)
	}
	return hook
}

// TestGoRunBinaryIsNotBakedIntoTheTeam: `up` run from a binary that `go run`
// built (and deletes on exit) leaves a team whose hooks and supervisor run a
// teamctl that stays; a hook called as Claude Code calls it records its event;
// another `go run` build of the same teamctl sees nothing changed.
func TestGoRunBinaryIsNotBakedIntoTheTeam(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	layout := standInLayout(e, "team.yaml", "team: gorun\nmembers:\n  - name: mate\n")
	first := goRunCopy(t, e, "go-build123")
	runBin(t, e, first, "up", layout)
	if err := os.Remove(first); err != nil { // go run's exit
		t.Fatal(err)
	}

	s := getStatus(t, e, "gorun")
	hook := checkTeamctlStays(t, e, "gorun", s.Members[0].PID)

	// The hook as Claude Code runs it: its command through a shell, JSON on stdin.
	testenv.Eventually(t, 10*time.Second, "the supervisor's start", func() (bool, string) {
		return countEvents(events(t, e, "gorun"), "", "supervisor") >= 1, ""
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", hook)
	cmd.Env = append(e.Environ(), "TEAMCTL_TEAM=gorun", "TEAMCTL_MEMBER=lead", "TMUX_PANE="+s.Members[0].Pane)
	cmd.Stdin = strings.NewReader(`{"session_id":"s","cwd":"/x","hook_event_name":"Stop"}`)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hook %s: %v %s", hook, err, out)
	}
	testenv.Eventually(t, 10*time.Second, "the hook's event", func() (bool, string) {
		evs := events(t, e, "gorun")
		return countEvents(evs, "lead", "hook") == 1, fmt.Sprint(evs)
	})

	// Another go run of the same teamctl: a new temp path, nothing changed.
	second := goRunCopy(t, e, "go-build456")
	r := runBin(t, e, second, "up", layout)
	os.Remove(second)
	if strings.Contains(r.Stdout, "changed in the layout") || strings.Count(r.Stdout, "(already running)") != 2 {
		t.Errorf("a second up from another go run build:\n%s", r.Stdout)
	}
	if copies, _ := filepath.Glob(filepath.Join(e.StateHome, "teamctl", ".bin", "teamctl-*")); len(copies) != 1 {
		t.Errorf("two go run builds of one teamctl: copies %q, want one", copies)
	}
	// The same teamctl installed elsewhere (a path that stays, so used as it
	// is): nothing changed either.
	moved := copyTeamctl(t, e, filepath.Join("bin", "teamctl"))
	r = runBin(t, e, moved, "up", layout)
	if strings.Contains(r.Stdout, "changed in the layout") || strings.Count(r.Stdout, "(already running)") != 2 {
		t.Errorf("up from teamctl installed elsewhere:\n%s", r.Stdout)
	}
	again := getStatus(t, e, "gorun")
	for i, m := range again.Members {
		if m.PID != s.Members[i].PID {
			t.Errorf("%s was restarted: pid %d, was %d", m.Name, m.PID, s.Members[i].PID)
		}
	}
}

// TestDemoFromGoRun: the README's `teamctl demo`, run from a go run build that
// is then deleted, leaves a demo whose members run, and its printed hint stops it.
func TestDemoFromGoRun(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.Extra = append(e.Extra, "PATH=/usr/bin:/bin")
	bin := goRunCopy(t, e, "go-build789")
	r := runBin(t, e, bin, "demo")
	os.Remove(bin)
	s := getStatus(t, e, "demo")
	checkTeamctlStays(t, e, "demo", s.Members[0].PID)
	for _, m := range s.Members {
		argv, err := proc.Cmdline(m.PID)
		if err != nil || len(argv) == 0 {
			t.Fatalf("%s: argv %q %v", m.Name, argv, err)
		}
		if strings.Contains(argv[0], "go-build") {
			t.Errorf("%s runs %s", m.Name, argv[0])
		}
	}
	waitScreen(t, e, "teamctl-demo", s.Members[1].Pane, "Overwrite? (y/n)")
	var hint []string
	for _, ln := range strings.Split(r.Stdout, "\n") {
		if _, cmdline, ok := strings.Cut(ln, "Stop it with: "); ok {
			hint = strings.Fields(cmdline)
		}
	}
	if len(hint) < 2 || hint[0] != "teamctl" {
		t.Fatalf("no stop hint in the demo's output:\n%s", r.Stdout)
	}
	e.MustRun(hint[1:]...)
	if out, err := e.Tmux("teamctl-demo", "list-panes", "-a"); err == nil {
		t.Errorf("the demo's server still runs after %q:\n%s", hint, out)
	}
}
