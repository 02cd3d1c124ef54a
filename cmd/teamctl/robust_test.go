package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/testenv"
)

// runWith runs teamctl with extra environment and stdin, and fails the test
// when it takes longer than within. prefix, when given, is a program (and its
// arguments) that runs teamctl: argv is prefix, then the binary, then args.
func runWith(t *testing.T, e *testenv.Env, within time.Duration, stdin string, env []string, prefix []string, args ...string) testenv.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	argv := append(append(append([]string{}, prefix...), e.Bin), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(e.Environ(), env...)
	cmd.Dir = e.Work
	cmd.Stdin = strings.NewReader(stdin)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("teamctl %s did not finish within %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), within, so.String(), se.String())
	}
	r := testenv.Result{Stdout: so.String(), Stderr: se.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.Code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run teamctl %v: %v", args, err)
	}
	return r
}

// TestLayoutBombsAreRefusedQuickly: a 600-byte layout whose merge keys expand
// to 8^9 entries, and a layout over 1 MiB, are refused at once by validate and
// up, with the place in the file.
func TestLayoutBombsAreRefusedQuickly(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	var b strings.Builder
	b.WriteString("team: bomb\nx:\n  - &a0 {name: lead}\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "  - &a%d\n    <<: [%s]\n", i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 8), ", "))
	}
	b.WriteString("lead:\n  <<: *a9\n")
	bomb := e.WriteFile("bomb.yaml", b.String())
	for _, cmd := range []string{"validate", "up"} {
		r := runWith(t, e, 20*time.Second, "", nil, nil, cmd, bomb)
		if r.Code == 0 || !strings.Contains(r.Stderr, bomb+":") || !strings.Contains(r.Stderr, ": aliases expand the layout to more than") {
			t.Errorf("%s of a merge bomb: exit %d\n%s", cmd, r.Code, r.Stderr)
		}
	}
	big := e.WriteFile("big.yaml", "team: big\ndescription: "+strings.Repeat("x", 1<<20)+"\n")
	r := runWith(t, e, 20*time.Second, "", nil, nil, "validate", big)
	if r.Code == 0 || !strings.Contains(r.Stderr, big+":1:1: the file is larger than 1048576 bytes") {
		t.Errorf("validate of a 1 MiB layout: exit %d\n%.500s", r.Code, r.Stderr)
	}
}

// TestHostileTeammateNameIsAdoptedSafely: the lead's config names a teammate
// in the team's server "a\nb" and the like; the supervisor adopts the pane
// under a generated name and reports the refused one visibly; a pane option
// set to such a name by a program in the team does not break status, down or
// clean either, and down stops everything.
func TestHostileTeammateNameIsAdoptedSafely(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: hostile\n"))
	st, _ := readState(t, e, "hostile")
	config := filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "config.json")
	testenv.Eventually(t, 20*time.Second, "the lead's team config", func() (bool, string) {
		_, err := os.Stat(config)
		return err == nil, fmt.Sprint(err)
	})
	// The pane the lead "spawns" next is %1 (the lead is %0): name it first,
	// as Claude Code's lead records a teammate right after opening its pane.
	evil := "a\nb\x1b[2J\x1b]0;pwned\x07"
	var cfg map[string]any
	b, err := os.ReadFile(config)
	if err != nil || json.Unmarshal(b, &cfg) != nil {
		t.Fatalf("read %s: %v %s", config, err, b)
	}
	members, _ := cfg["members"].([]any)
	cfg["members"] = append(members, map[string]any{"agentId": "evil@" + st.ClaudeTeam, "name": evil, "tmuxPaneId": "%1", "cwd": e.Work, "backendType": "tmux"})
	b, _ = json.Marshal(cfg)
	if err := os.WriteFile(config, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := e.Tmux(st.Socket, "split-window", "-d", "-t", "%0", "-P", "-F", "#{pane_id}", "sleep", "600")
	if err != nil || strings.TrimSpace(out) != "%1" {
		t.Fatalf("split-window: %q %v", out, err)
	}
	m := waitMember(t, e, "hostile", "pane-1", 20*time.Second, func(m memberStatus) bool { return m.Pane == "%1" })
	if m.Origin != "lead" || m.PID <= 0 {
		t.Errorf("adopted member: %+v", m)
	}
	// The event follows the record in state by a moment.
	var adopted event
	testenv.Eventually(t, 10*time.Second, "the adoption event", func() (bool, string) {
		evs := events(t, e, "hostile")
		for _, ev := range evs {
			if ev.Kind == "adopted" && ev.Pane == "%1" {
				adopted = ev
				return true, ""
			}
		}
		return false, fmt.Sprint(evs)
	})
	if adopted.Member != "pane-1" || !strings.Contains(adopted.Detail, `"a\nb\x1b[2J\x1b]0;pwned\a"`) {
		t.Errorf("adoption event: %+v", adopted)
	}
	// A program of the team can set the option itself, to anything.
	if out, err := e.Tmux(st.Socket, "set-option", "-p", "-t", "%0", "@teamctl-member", "x\ny\x1e%9\x1f1"); err != nil {
		t.Fatalf("set-option: %s %v", out, err)
	}
	if r := e.Run("status", "--team", "hostile"); r.Code != 0 || !strings.Contains(r.Stdout, "pane-1") || strings.ContainsAny(r.Stdout, "\x1b\x07") {
		t.Errorf("status: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := e.Run("clean", "--dry-run", "--team", "hostile"); r.Code != 0 || strings.Contains(r.Stderr, "unexpected") {
		t.Errorf("clean --dry-run: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	r := e.Run("down", "--team", "hostile", "--timeout", "2s")
	if r.Code != 0 || !strings.Contains(r.Stdout, "team hostile is down") {
		t.Errorf("down: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if proc.GroupAlive(m.PID) {
		t.Errorf("the adopted pane's process (pid %d) survived down", m.PID)
	}
	if out, err := e.Tmux(st.Socket, "has-session"); err == nil {
		t.Errorf("the team's server still answers after down: %s", out)
	}
	if s := statusOf(t, e, "hostile"); s.Supervisor.Running {
		t.Error("the supervisor still runs after down")
	}
}

// TestDownFinishesWhenThePanesCannotBeListed: a tmux whose list-panes fails
// (as it did on a pane option holding a newline) must not leave the team
// running unsupervised: down stops the supervisor, kills the server by its
// socket, ends the processes that carry it, and only then reports the error.
func TestDownFinishesWhenThePanesCannotBeListed(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	tmuxPath, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not installed")
	}
	wrapper := e.WriteExecutable("tmux-wrapper", fmt.Sprintf(`#!/bin/sh
if [ -n "$TEAMCTL_TEST_FAIL_LIST_PANES" ]; then
	for a in "$@"; do
		if [ "$a" = list-panes ]; then echo "list-panes: injected failure" >&2; exit 1; fi
	done
fi
exec %s "$@"
`, tmuxPath))
	e.Extra = append(e.Extra, "TEAMCTL_TMUX="+wrapper)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: unlisted\nmembers:\n  - name: mate\n    env: {TEAMCTL_STANDIN_SCRIPT: busy}\n  - name: plain\n    command: [sleep, \"600\"]\n"))
	s := getStatus(t, e, "unlisted")
	testenv.Eventually(t, 10*time.Second, "the supervisor", func() (bool, string) {
		return statusOf(t, e, "unlisted").Supervisor.Running, ""
	})
	r := runWith(t, e, 60*time.Second, "", []string{"TEAMCTL_TEST_FAIL_LIST_PANES=1"}, nil, "down", "--team", "unlisted", "--timeout", "2s")
	if r.Code == 0 || !strings.Contains(r.Stderr, "injected failure") {
		t.Errorf("down should report the failed listing: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, m := range s.Members {
		if proc.GroupAlive(m.PID) {
			t.Errorf("%s (pid %d) still runs after down", m.Name, m.PID)
		}
	}
	if out, err := e.Tmux(s.Socket, "has-session"); err == nil {
		t.Errorf("the team's server still answers after down: %s", out)
	}
	if statusOf(t, e, "unlisted").Supervisor.Running {
		t.Error("the supervisor still runs")
	}
}

// TestAgentTextIsShownVisibly: a teammate's message, a permission request, a
// hook's message and a task's subject holding terminal escapes reach the
// terminal made visible from events, inbox, status and tasks; --json keeps
// the exact text.
func TestAgentTextIsShownVisibly(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	const evil = "\x1b[2J\x1b]0;pwned\x07"
	const shown = `\x1b[2J\x1b]0;pwned\a`
	e.MustRun("up", standInLayout(e, "team.yaml", "team: escapes\nmembers:\n  - name: mate\n    env: {TEAMCTL_STANDIN_SCRIPT: busy}\n"))
	st, _ := readState(t, e, "escapes")
	testenv.Eventually(t, 10*time.Second, "the supervisor's start", func() (bool, string) {
		return countEvents(events(t, e, "escapes"), "", "supervisor") == 1, ""
	})
	inbox := filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "inboxes", "team-lead.json")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := claudecode.AppendMessage(ctx, inbox, claudecode.Message{From: "mate", Text: "message " + evil, Timestamp: claudecode.Timestamp(time.Now())}); err != nil {
		t.Fatal(err)
	}
	req := claudecode.PermissionRequest{RequestID: "perm-1", AgentID: "mate@" + st.ClaudeTeam, ToolName: "Bash" + evil, Description: "ls", Input: json.RawMessage(`{"command":"ls"}`)}
	if err := claudecode.AppendMessage(ctx, inbox, claudecode.PermissionRequestMessage("mate", req, time.Now())); err != nil {
		t.Fatal(err)
	}
	hook := runWith(t, e, time.Minute, `{"hook_event_name":"Notification","message":"hook `+strings.ReplaceAll(strings.ReplaceAll(evil, "\x1b", `\u001b`), "\x07", `\u0007`)+`"}`,
		[]string{"TEAMCTL_TEAM=escapes", "TEAMCTL_MEMBER=mate", "TMUX_PANE=" + member(statusOf(t, e, "escapes"), "mate").Pane}, nil, "hook")
	if hook.Code != 0 {
		t.Fatalf("hook: %+v", hook)
	}
	tasks := filepath.Join(e.ClaudeDir, "tasks", st.ClaudeTeam)
	os.MkdirAll(tasks, 0o700)
	task, _ := json.Marshal(map[string]any{"id": "1", "subject": "task " + evil, "status": "pending", "owner": "mate"})
	if err := os.WriteFile(filepath.Join(tasks, "1.json"), task, 0o600); err != nil {
		t.Fatal(err)
	}
	waitMember(t, e, "escapes", "mate", 20*time.Second, func(m memberStatus) bool { return m.State == "waiting-approval" })
	testenv.Eventually(t, 20*time.Second, "the message and the hook as events", func() (bool, string) {
		evs := events(t, e, "escapes")
		return countEvents(evs, "mate", "message") == 1 && countEvents(evs, "mate", "hook") == 1, fmt.Sprint(evs)
	})

	human := map[string][]string{
		"events": {"message " + shown, "hook " + shown},
		"inbox":  {"message " + shown},
		"status": {"Bash" + shown},
		"tasks":  {"task " + shown},
	}
	for cmd, wants := range human {
		args := []string{cmd, "--team", "escapes"}
		if cmd == "inbox" {
			args = append(args, "lead")
		}
		out := e.MustRun(args...).Stdout
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("%s printed a raw escape:\n%q", cmd, out)
		}
		for _, want := range wants {
			if !strings.Contains(out, want) {
				t.Errorf("%s does not show %q:\n%s", cmd, want, out)
			}
		}
	}
	// --json is exact.
	jsonOut := map[string]string{
		"events": e.MustRun("events", "--json", "--team", "escapes").Stdout,
		"inbox":  e.MustRun("inbox", "lead", "--json", "--team", "escapes").Stdout,
		"status": e.MustRun("status", "--json", "--team", "escapes").Stdout,
		"tasks":  e.MustRun("tasks", "--json", "--team", "escapes").Stdout,
	}
	for cmd, out := range jsonOut {
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("%s --json holds a raw escape (JSON escapes control characters)", cmd)
		}
		if !strings.Contains(out, `\u001b[2J\u001b]0;pwned\u0007`) {
			t.Errorf("%s --json lost the exact text:\n%s", cmd, out)
		}
	}
	var s protoStatus
	if err := json.Unmarshal([]byte(jsonOut["status"]), &s); err != nil {
		t.Fatal(err)
	}
	for _, m := range s.Members {
		if m.Name == "mate" && (m.Request == nil || m.Request.Tool != "Bash"+evil) {
			t.Errorf("status --json request: %+v", m.Request)
		}
	}
}

// readOnlyPrefix returns the argv prefix that runs a command in a private
// mount namespace where dir is a read-only bind mount of itself, so the
// command sees dir read-only (for root too, which file modes do not stop),
// and nothing outside that command sees any change. It skips the test when
// the machine cannot do that.
func readOnlyPrefix(t *testing.T, dir string) []string {
	t.Helper()
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare not found: cannot make a read-only state folder for root")
	}
	const script = `mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"`
	prefix := []string{unshare, "--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh", dir}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	probe := exec.CommandContext(ctx, prefix[0], append(prefix[1:], "/bin/sh", "-c", `! touch "$0/probe" 2>/dev/null`, dir)...)
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("a read-only bind mount in a private mount namespace (unshare --mount) is not possible here: %v %s", err, out)
	}
	return prefix
}

// TestAnswerAndDownOnAReadOnlyStateFolder: with the team's state folder
// read-only, answer sends the keys once and exits 0 with a warning that it
// could not record them; down still stops the whole team and says it could
// not record the stop.
func TestAnswerAndDownOnAReadOnlyStateFolder(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: rofs
watchdog: {quiet: 300ms}
members:
  - name: asker
    env: {TEAMCTL_STANDIN_SCRIPT: "work:1s,ask"}
  - name: plain
    command: [sleep, "600"]
`))
	ro := readOnlyPrefix(t, filepath.Join(e.StateHome, "teamctl", "rofs"))
	s := getStatus(t, e, "rofs")
	m := waitMember(t, e, "rofs", "asker", 20*time.Second, func(m memberStatus) bool { return m.State == "stalled" })

	r := runWith(t, e, 30*time.Second, "", nil, ro, "answer", "asker", "y", "--team", "rofs")
	if r.Code != 0 || !strings.Contains(r.Stdout, "sent y Enter to asker\n") || !strings.Contains(r.Stderr, "warning: the keys were sent, but could not be recorded") {
		t.Errorf("answer on a read-only state folder: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	waitScreen(t, e, "teamctl-rofs", m.Pane, "answered: y")

	r = runWith(t, e, 60*time.Second, "", nil, ro, "down", "--team", "rofs", "--timeout", "2s")
	if r.Code != 0 || !strings.Contains(r.Stdout, "team rofs is down") || !strings.Contains(r.Stderr, "warning: could not record the stop") {
		t.Errorf("down on a read-only state folder: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, m := range s.Members {
		if proc.GroupAlive(m.PID) {
			t.Errorf("%s (pid %d) still runs after down", m.Name, m.PID)
		}
	}
	if out, err := e.Tmux(s.Socket, "has-session"); err == nil {
		t.Errorf("the team's server still answers after down: %s", out)
	}
	if statusOf(t, e, "rofs").Supervisor.Running {
		t.Error("the supervisor still runs after down")
	}
}

// TestTeamsListsTheOthersWhenOneStateIsCorrupt: one team's state.json does
// not parse; teams still lists every team, that one with its error.
func TestTeamsListsTheOthersWhenOneStateIsCorrupt(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: healthy\n"))
	broken := filepath.Join(e.StateHome, "teamctl", "broken")
	os.MkdirAll(broken, 0o700)
	if err := os.WriteFile(filepath.Join(broken, "state.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.Run("teams")
	if r.Code != 0 {
		t.Errorf("teams: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stdout, "healthy") || !regexp.MustCompile(`(?m)^broken +error\b`).MatchString(r.Stdout) {
		t.Errorf("teams output:\n%s", r.Stdout)
	}
	if !strings.Contains(r.Stderr, "team broken: read state of team \"broken\"") {
		t.Errorf("teams stderr: %s", r.Stderr)
	}
	var ts []struct {
		Team  string `json:"team"`
		Up    bool   `json:"up"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(e.MustRun("teams", "--json").Stdout), &ts); err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 || ts[0].Team != "broken" || ts[0].Error == "" || ts[1].Team != "healthy" || !ts[1].Up || ts[1].Error != "" {
		t.Errorf("teams --json: %+v", ts)
	}
}

// TestHookForAnUnknownTeamMakesNoFolder: Claude Code's hook with a
// TEAMCTL_TEAM that has no state exits 0 and leaves nothing behind.
func TestHookForAnUnknownTeamMakesNoFolder(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	r := runWith(t, e, time.Minute, `{"hook_event_name":"Stop","session_id":"s"}`, []string{"TEAMCTL_TEAM=ghost", "TEAMCTL_MEMBER=m"}, nil, "hook")
	if r.Code != 0 {
		t.Errorf("hook: exit %d %s", r.Code, r.Stderr)
	}
	if _, err := os.Lstat(filepath.Join(e.StateHome, "teamctl", "ghost")); err == nil {
		t.Error("hook made a state folder for a team that does not exist")
	}
}
