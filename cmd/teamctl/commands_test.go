package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/testenv"
)

// ptyOutput collects what a program writes to its terminal.
type ptyOutput struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *ptyOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

func (o *ptyOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// attachThroughPTY runs `teamctl attach member` in a pseudo-terminal, waits for
// the terminal to show everything in wants (the member's screen, …), detaches
// with the prefix key and d, and returns what the terminal showed and the exit
// code.
func attachThroughPTY(t *testing.T, e *testenv.Env, team, member string, wants []string, extraEnv ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // ends a hang; the waits below fail first
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, "attach", member, "--team", team)
	cmd.Env = append(e.Environ(), append([]string{"TERM=xterm-256color"}, extraEnv...)...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 150})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := &ptyOutput{}
	done := make(chan struct{})
	go func() { bytesCopy(out, f); close(done) }()
	testenv.Eventually(t, time.Minute, fmt.Sprintf("%q in the attached terminal", wants), func() (bool, string) {
		s := out.String()
		for _, w := range wants {
			if !strings.Contains(s, w) {
				return false, s
			}
		}
		return true, s
	})
	f.Write([]byte{0x02}) // C-b, the default prefix
	f.Write([]byte("d"))
	waitErr := make(chan error, 1)
	go func() { waitErr <- cmd.Wait() }()
	select {
	case err := <-waitErr:
		<-done
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), code
	case <-ctx.Done():
		t.Fatalf("attach did not end after detaching; terminal showed:\n%s", out.String())
	}
	return "", -1
}

func bytesCopy(dst *ptyOutput, src *os.File) {
	buf := make([]byte, 4096)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			dst.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// TestAttachThroughAPTY: attach shows the member's screen, detaching exits 0 and
// leaves the team running; inside another tmux it still works and says how to detach.
func TestAttachThroughAPTY(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	layout := standInLayout(e, "team.yaml", `team: att
members:
  - name: researcher
    prompt: Look for the ATTACH-MARKER please.
`)
	e.MustRun("up", layout)
	screenText, code := attachThroughPTY(t, e, "att", "researcher", []string{"ATTACH-MARKER"})
	if code != 0 {
		t.Fatalf("attach exit %d; terminal:\n%s", code, screenText)
	}
	if !strings.Contains(screenText, "detached") {
		t.Errorf("terminal does not show tmux's detach message:\n%s", screenText)
	}
	// The selected pane is the researcher's.
	if out, _ := e.Tmux("teamctl-att", "display-message", "-p", "-t", "=att:", "#{@teamctl-member}"); strings.TrimSpace(out) != "researcher" {
		t.Errorf("active pane is %q, want researcher", out)
	}
	s := getStatus(t, e, "att")
	for _, m := range s.Members {
		if !live(m.State) {
			t.Errorf("%s %s after detach", m.Name, m.State)
		}
	}

	// Nested: TMUX set as inside another tmux. The hint must show while
	// attached, on tmux's screen: what was written before tmux took the
	// terminal is hidden by it (and tmux may discard it: it flushes the
	// terminal's output as it starts).
	const hint = "detach it with C-b C-b d"
	screenText, code = attachThroughPTY(t, e, "att", "lead", []string{"auto mode on", hint}, "TMUX=/tmp/outer-tmux-socket,1,0")
	if code != 0 {
		t.Fatalf("nested attach exit %d:\n%s", code, screenText)
	}
	// tmux's screen begins with xterm's alternate screen (smcup), TERM being
	// xterm-256color.
	if tmuxScreen := strings.Index(screenText, "\x1b[?1049h"); tmuxScreen < 0 || !strings.Contains(screenText[tmuxScreen:], hint) {
		t.Errorf("nested attach does not tell how to detach on tmux's screen:\n%q", screenText)
	}
	if out, _ := e.Tmux("teamctl-att", "display-message", "-p", "-t", "=att:", "#{@teamctl-member}"); strings.TrimSpace(out) != "lead" {
		t.Errorf("active pane is %q, want lead", out)
	}
}

// TestValidateReportsEveryProblemWithLineAndColumn, through the command.
func TestValidateReportsEveryProblemWithLineAndColumn(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	p := e.WriteFile("bad.yaml", `team: Bad_Team
layout: spiral
members:
  - name: a/b
    color: mauve
    permisionMode: manual
  - name: x
    planModeRequired: true
    permissionMode: bypassPermissions
    env: {"1BAD": v}
    cwd: does-not-exist
`)
	r := e.Run("validate", p)
	if r.Code == 0 {
		t.Fatalf("validate accepted a bad layout: %s", r.Stdout)
	}
	for _, want := range []string{
		p + ":1:7: team:",
		p + ":2:9: layout:",
		p + ":4:11: members[0].name:",
		p + ":5:12: members[0].color:",
		p + ":6:5: members[0]: unknown key \"permisionMode\"; did you mean \"permissionMode\"?",
		p + ":10:11: members[1].env.1BAD:",
		p + ":11:10: members[1].cwd:",
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("missing %q in:\n%s", want, r.Stderr)
		}
	}
	if !strings.Contains(r.Stderr, "bypassPermissions") {
		t.Errorf("planModeRequired with bypassPermissions not reported:\n%s", r.Stderr)
	}
	// up refuses the same file before touching tmux.
	r = e.Run("up", p)
	if r.Code == 0 || !strings.Contains(r.Stderr, ":2:9: layout:") {
		t.Errorf("up on a bad layout: exit %d %s", r.Code, r.Stderr)
	}
	if ents, _ := os.ReadDir(filepath.Join(e.TmuxTmpDir)); len(ents) != 0 {
		t.Errorf("up on a bad layout started tmux: %v", ents)
	}
	r = e.MustRun("validate", standInLayout(e, "ok.yaml", "team: fine\n"))
	if !strings.Contains(r.Stdout, "valid") {
		t.Errorf("validate of a good layout: %s", r.Stdout)
	}
}

func TestUpFailsFastWhenClaudeIsMissing(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.Extra = append(e.Extra, "PATH=/usr/bin:/bin")
	p := e.WriteFile("team.yaml", "team: noclaude\nclaude:\n  command: claude\n")
	r := e.Run("up", p)
	if r.Code == 0 || !strings.Contains(r.Stderr, `"claude" not found`) || !strings.Contains(r.Stderr, "npm install -g @anthropic-ai/claude-code") {
		t.Errorf("exit %d stderr %q", r.Code, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(e.StateHome, "teamctl", "noclaude", "state.json")); err == nil {
		t.Error("state written for a team that never came up")
	}
}

func TestUpRequiresTmux32(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	fake := e.WriteExecutable("bin/tmux", "#!/bin/sh\necho 'tmux 3.1c'\n")
	e.Extra = append(e.Extra, "TEAMCTL_TMUX="+fake)
	r := e.Run("up", standInLayout(e, "team.yaml", "team: old\n"))
	if r.Code == 0 || !strings.Contains(r.Stderr, "tmux 3.1c is too old") || !strings.Contains(r.Stderr, "3.2 or newer") {
		t.Errorf("exit %d stderr %q", r.Code, r.Stderr)
	}
	e.Extra = append(e.Extra, "TEAMCTL_TMUX="+filepath.Join(e.Work, "bin", "missing-tmux"))
	r = e.Run("up", standInLayout(e, "team.yaml", "team: old\n"))
	if r.Code == 0 || !strings.Contains(r.Stderr, "tmux not found") {
		t.Errorf("missing tmux: exit %d stderr %q", r.Code, r.Stderr)
	}
}

// TestFindTeam: one team up is found without --team; two are not, and the error
// names both; TEAMCTL_TEAM picks one.
func TestFindTeam(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	if r := e.Run("status"); r.Code == 0 || !strings.Contains(r.Stderr, "no team is up") {
		t.Errorf("no team: exit %d %q", r.Code, r.Stderr)
	}
	e.MustRun("up", standInLayout(e, "a.yaml", "team: first\n"))
	if r := e.MustRun("status", "--json"); !strings.Contains(r.Stdout, `"team": "first"`) {
		t.Errorf("the only team was not found: %s", r.Stdout)
	}
	e.MustRun("up", standInLayout(e, "b.yaml", "team: second\n"))
	r := e.Run("status")
	if r.Code == 0 || !strings.Contains(r.Stderr, "first, second") || !strings.Contains(r.Stderr, "--team") {
		t.Errorf("two teams: exit %d %q", r.Code, r.Stderr)
	}
	e.Extra = append(e.Extra, "TEAMCTL_TEAM=second")
	if r := e.MustRun("status", "--json"); !strings.Contains(r.Stdout, `"team": "second"`) {
		t.Errorf("TEAMCTL_TEAM ignored: %s", r.Stdout)
	}
	var teams []struct {
		Team string `json:"team"`
		Up   bool   `json:"up"`
	}
	json.Unmarshal([]byte(e.MustRun("teams", "--json").Stdout), &teams)
	if len(teams) != 2 || !teams[0].Up || !teams[1].Up {
		t.Errorf("teams --json: %+v", teams)
	}
	e.MustRun("down", "--team", "first")
	e.Extra = e.Extra[:len(e.Extra)-1]
	if r := e.MustRun("status", "--json"); !strings.Contains(r.Stdout, `"team": "second"`) {
		t.Errorf("after one team is down, the other is the only one: %s", r.Stdout)
	}
}

// TestArrangements: tiled tiles, windows gives each member its own window.
func TestArrangements(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "w.yaml", "team: wins\nlayout: windows\nmembers:\n  - name: a\n  - name: b\n"))
	out, _ := e.Tmux("teamctl-wins", "list-windows", "-a", "-F", "#{window_name} #{window_panes}")
	if strings.TrimSpace(out) != "lead 1\na 1\nb 1" {
		t.Errorf("windows layout:\n%s", out)
	}
	// Each pane named as it was made (in the batch that made it), the lead's
	// window and pane left selected.
	out, _ = e.Tmux("teamctl-wins", "list-panes", "-a", "-F", "#{window_name} #{pane_title} #{@teamctl-member} #{window_active}#{pane_active}")
	if strings.TrimSpace(out) != "lead lead lead 11\na a a 01\nb b b 01" {
		t.Errorf("windows' panes:\n%s", out)
	}
	e.MustRun("up", standInLayout(e, "t.yaml", "team: tiles\nlayout: tiled\nmembers:\n  - name: a\n  - name: b\n  - name: c\n"))
	out, _ = e.Tmux("teamctl-tiles", "list-panes", "-a", "-F", "#{pane_left},#{pane_top}")
	pos := strings.Fields(out)
	if len(pos) != 4 {
		t.Fatalf("tiled: %q", out)
	}
	// Four tiled panes make a 2x2 grid: two distinct lefts and two distinct tops.
	lefts, tops := map[string]bool{}, map[string]bool{}
	for _, p := range pos {
		l, tp, _ := strings.Cut(p, ",")
		lefts[l], tops[tp] = true, true
	}
	if len(lefts) != 2 || len(tops) != 2 {
		t.Errorf("tiled is not a grid: %q", out)
	}
	out, _ = e.Tmux("teamctl-tiles", "list-panes", "-a", "-F", "#{pane_title} #{@teamctl-member} #{pane_active}")
	if strings.TrimSpace(out) != "lead lead 1\na a 0\nb b 0\nc c 0" {
		t.Errorf("tiled panes:\n%s", out)
	}
}

// TestDemoComesUpWithoutClaude: `teamctl demo` without a terminal brings the
// stand-in team up and says how to attach and how to watch it with top.
func TestDemoComesUpWithoutClaude(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.Extra = append(e.Extra, "PATH=/usr/bin:/bin")
	r := e.MustRun("demo")
	if !strings.Contains(r.Stdout, "teamctl attach lead --team demo") || !strings.Contains(r.Stdout, "teamctl top --team demo") {
		t.Errorf("demo output:\n%s", r.Stdout)
	}
	s := getStatus(t, e, "demo")
	if len(s.Members) != 4 {
		t.Fatalf("demo members: %+v", s.Members)
	}
	for _, m := range s.Members {
		// On a slow machine the reviewer may have asked already.
		if !live(m.State) && m.State != "waiting-approval" {
			t.Errorf("%s: %s", m.Name, m.State)
		}
	}
	waitScreen(t, e, "teamctl-demo", s.Members[1].Pane, "Overwrite? (y/n)")
	waitScreen(t, e, "teamctl-demo", s.Members[2].Pane, "Permission request sent to team")
}

// demoMember is a member of the demo in `status --json`, with its permission
// request.
type demoMember struct {
	Name    string `json:"name"`
	PID     int    `json:"pid"`
	State   string `json:"state"`
	Request *struct {
		ID    string `json:"id"`
		Tool  string `json:"tool"`
		Input string `json:"input"`
	} `json:"request"`
}

func demoMembers(t *testing.T, e *testenv.Env) map[string]demoMember {
	t.Helper()
	var s struct{ Members []demoMember }
	if err := json.Unmarshal([]byte(e.MustRun("status", "--json", "--team", "demo").Stdout), &s); err != nil {
		t.Fatal(err)
	}
	out := map[string]demoMember{}
	for _, m := range s.Members {
		out[m.Name] = m
	}
	return out
}

// TestDemoPermissionIsApprovedAndDownAsksEveryone: the demo's reviewer asks
// its lead, through Claude Code's mailboxes, to run a Bash command: it is
// waiting-approval in status with the tool and the command, and once
// `teamctl approve` answers, the command has run (demo.txt in the demo's own
// folder) and the reviewer is back at work. `teamctl down` of the demo then
// ends every teammate by Claude Code's shutdown_request — the one at its
// y/n question, the reviewer on its idle screen, the busy builder — which
// each approves, as its output says; nobody is left for SIGTERM's grace.
func TestDemoPermissionIsApprovedAndDownAsksEveryone(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.Extra = append(e.Extra, "PATH=/usr/bin:/bin")
	if r := e.MustRun("demo"); !strings.Contains(r.Stdout, "a/d approves or denies a permission request") {
		t.Errorf("demo does not say how to approve in top:\n%s", r.Stdout)
	}
	command := "echo approved: wrote demo.txt | tee demo.txt"
	var reviewer demoMember
	testenv.Eventually(t, time.Minute, "the reviewer waiting for approval of its Bash command", func() (bool, string) {
		reviewer = demoMembers(t, e)["reviewer"]
		r := reviewer.Request
		return reviewer.State == "waiting-approval" && r != nil && r.Tool == "Bash" &&
			r.Input == `{"command":"`+command+`"}`, fmt.Sprintf("%+v %+v", reviewer, r)
	})
	file := filepath.Join(e.StateHome, "teamctl", "demo", "demo.txt")
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("demo.txt before the approval: %v", err)
	}
	if r := e.MustRun("approve", "reviewer", "--team", "demo"); !strings.Contains(r.Stdout, reviewer.Request.ID) {
		t.Errorf("approve: %s", r.Stdout)
	}
	testenv.Eventually(t, time.Minute, "the approved command's demo.txt", func() (bool, string) {
		b, err := os.ReadFile(file)
		return string(b) == "approved: wrote demo.txt\n", fmt.Sprintf("%q %v", b, err)
	})
	testenv.Eventually(t, time.Minute, "the reviewer back at work", func() (bool, string) {
		m := demoMembers(t, e)["reviewer"]
		return (m.State == "working" || m.State == "idle") && m.Request == nil, fmt.Sprintf("%+v", m)
	})
	var members map[string]demoMember
	testenv.Eventually(t, time.Minute, "the researcher stalled at its question", func() (bool, string) {
		members = demoMembers(t, e)
		return members["researcher"].State == "stalled", fmt.Sprintf("%+v", members["researcher"])
	})
	r := e.MustRun("down", "--team", "demo")
	if !strings.Contains(r.Stdout, "team demo is down: 4 stopped (builder, researcher, reviewer approved the shutdown request)\n") ||
		strings.Contains(r.Stdout, "killed") || strings.Contains(r.Stderr, "did not end") {
		t.Errorf("down:\n%s%s", r.Stdout, r.Stderr)
	}
	for name, m := range members {
		if proc.GroupAlive(m.PID) {
			t.Errorf("%s (pid %d) still has processes after down", name, m.PID)
		}
	}
}

func TestDoctor(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.Extra = append(e.Extra, "TEAMCTL_CLAUDE="+e.Bin)
	r := e.Run("doctor", "--json")
	var checks []struct {
		Name, Detail, Fix string
		OK                bool
	}
	if err := json.Unmarshal([]byte(r.Stdout), &checks); err != nil {
		t.Fatal(err, r.Stdout)
	}
	byName := map[string]bool{}
	for _, c := range checks {
		byName[c.Name] = c.OK
	}
	if !byName["tmux"] || !byName["git"] || !byName["state folder"] {
		t.Errorf("doctor: %+v", checks)
	}
	e.Extra = append(e.Extra, "TEAMCTL_CLAUDE=no-such-claude-here")
	r = e.Run("doctor")
	if r.Code == 0 || !strings.Contains(r.Stdout, "FAIL") || !strings.Contains(r.Stdout, "npm install -g @anthropic-ai/claude-code") {
		t.Errorf("doctor without claude: exit %d\n%s", r.Code, r.Stdout)
	}
}

// TestCompletion: the shell completion offers the team's members to attach
// (and friends) and the teams to --team and clean.
func TestCompletion(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: comp\nmembers:\n  - name: alice\n    prompt: hi\n"))
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "attach", ""}, []string{"lead", "alice"}},
		{[]string{"__complete", "send", ""}, []string{"lead", "alice"}},
		{[]string{"__complete", "logs", ""}, []string{"lead", "alice"}},
		{[]string{"__complete", "clean", ""}, []string{"comp"}},
		{[]string{"__complete", "status", "--team", ""}, []string{"comp"}},
	} {
		out := e.MustRun(c.args...).Stdout
		for _, w := range c.want {
			if !strings.Contains("\n"+out, "\n"+w+"\n") && !strings.Contains("\n"+out, "\n"+w+"\t") {
				t.Errorf("teamctl %v offers:\n%s\nwant %s among them", c.args, out, w)
			}
		}
	}
	// A second team up: attach offers both teams' members, each with its
	// team, and a member only one team has needs no --team.
	e.MustRun("up", standInLayout(e, "other.yaml", "team: other\nmembers:\n  - name: bob\n"))
	out := e.MustRun("__complete", "attach", "").Stdout
	for _, w := range []string{"alice\tteam comp, teammate", "bob\tteam other, teammate", "lead\tteam comp, lead", "lead\tteam other, lead"} {
		if !strings.Contains(out, w) {
			t.Errorf("with two teams up, attach offers:\n%s\nwant %q among them", out, w)
		}
	}
	if r := e.MustRun("inbox", "bob", "--json"); r.Code != 0 {
		t.Errorf("inbox bob with two teams up: %+v", r)
	}
	if r := e.Run("inbox", "lead"); r.Code != 1 || !strings.Contains(r.Stderr, "2 teams are up with a member lead (comp, other): name one with --team") {
		t.Errorf("inbox lead with two teams up that both have one: exit %d, %s", r.Code, r.Stderr)
	}
}

// TestUpAndValidateFindTheFoldersLayout: without a file, up and validate take
// ./teamctl.yaml (else .teamctl.yaml) and say which; a worktree member outside
// a git repository is a problem validate reports, as up would refuse it.
func TestUpAndValidateFindTheFoldersLayout(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	standInLayout(e, ".teamctl.yaml", "team: hidden\n")
	r := e.MustRun("validate")
	if r.Stderr != "using .teamctl.yaml\n" || !strings.Contains(r.Stdout, "team hidden") {
		t.Errorf("validate with only .teamctl.yaml: stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	standInLayout(e, "teamctl.yaml", "team: found\nmembers:\n  - name: mate\n")
	r = e.MustRun("up")
	if !strings.HasPrefix(r.Stderr, "using teamctl.yaml\n") || !strings.Contains(r.Stdout, "team found is up") {
		t.Fatalf("up with teamctl.yaml beside .teamctl.yaml: stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	if m := member(statusOf(t, e, "found"), "mate"); m.Name != "mate" {
		t.Errorf("the team of teamctl.yaml is not up: %+v", statusOf(t, e, "found"))
	}

	// Not a git repository: e.Work is a plain folder.
	p := standInLayout(e, "wt.yaml", "team: wt\nmembers:\n  - name: a\n    worktree: true\n")
	r = e.Run("validate", p)
	if r.Code != 1 || !strings.Contains(r.Stderr, "member a wants a worktree") || !strings.Contains(r.Stderr, "not in a git repository") {
		t.Errorf("validate of a worktree member outside git: exit %d, stderr %q", r.Code, r.Stderr)
	}
}

// TestManPages: `teamctl man` prints teamctl(1); with a folder it writes a
// page per command, from the same text as --help.
func TestManPages(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	r := e.MustRun("man")
	if !strings.HasPrefix(r.Stdout, ".nh\n.TH \"TEAMCTL\" \"1\"") || !strings.Contains(r.Stdout, "Supervise teams of Claude Code sessions in tmux") {
		t.Errorf("teamctl man:\n%s", r.Stdout)
	}
	dir := filepath.Join(e.Work, "man1")
	r = e.MustRun("man", dir)
	up, err := os.ReadFile(filepath.Join(dir, "teamctl-up.1"))
	if err != nil || !strings.Contains(string(up), `.TH "TEAMCTL-UP" "1"`) || !strings.Contains(string(up), "recreate") {
		t.Errorf("teamctl-up.1 (%v):\n%s", err, up)
	}
	for _, name := range []string{"teamctl.1", "teamctl-status.1", "teamctl-completion-bash.1"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("no %s: %v (%s)", name, err, r.Stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "teamctl-stand-in.1")); err == nil {
		t.Errorf("a page for the hidden stand-in command")
	}
}

// TestUpHandsItsSupervisorTheLock: up takes the team's supervisor lock and
// hands it to the supervisor it starts, which keeps it only for itself:
// its copy of the lock's file is closed on exec, so no program it runs (its
// tmux control client here) holds the lock after it is gone.
func TestUpHandsItsSupervisorTheLock(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "h.yaml", "team: handed\nmembers:\n  - name: a\n"))
	lockPath := filepath.Join(e.StateHome, "teamctl", "handed", "supervisor.lock")
	b, err := os.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || !proc.Alive(pid) {
		t.Fatalf("the lock names %q (%v), no live supervisor", b, err)
	}
	// The supervisor's files that are the lock, with their flags.
	lockFDs := func(pid int) map[string]string {
		out := map[string]string{}
		fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
		for _, fd := range fds {
			if target, err := os.Readlink(fd); err == nil && target == lockPath {
				info, _ := os.ReadFile(strings.Replace(fd, "/fd/", "/fdinfo/", 1))
				out[filepath.Base(fd)] = string(info)
			}
		}
		return out
	}
	held := lockFDs(pid)
	if len(held) != 1 {
		t.Fatalf("the supervisor (pid %d) has the lock open %d times, want once: %v", pid, len(held), held)
	}
	for fd, info := range held {
		var flags int64
		for _, l := range strings.Split(info, "\n") {
			if v, ok := strings.CutPrefix(l, "flags:"); ok {
				flags, _ = strconv.ParseInt(strings.TrimSpace(v), 8, 64)
			}
		}
		if flags&syscall.O_CLOEXEC == 0 {
			t.Errorf("the supervisor's lock (fd %s) is not closed on exec: %s", fd, info)
		}
	}
	var children []int
	testenv.Eventually(t, 30*time.Second, "the supervisor's tmux client", func() (bool, string) {
		children = childrenOf(pid)
		return len(children) > 0, fmt.Sprint(children)
	})
	for _, c := range children {
		if fds := lockFDs(c); len(fds) != 0 {
			args, _ := proc.Cmdline(c)
			t.Errorf("the supervisor's child %d (%q) holds the lock's file: %v", c, args, fds)
		}
	}
}

// childrenOf are the processes whose parent is pid.
func childrenOf(pid int) []int {
	var out []int
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, s := range stats {
		b, err := os.ReadFile(s)
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:])) // state, ppid, ...
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			c, _ := strconv.Atoi(filepath.Base(filepath.Dir(s)))
			out = append(out, c)
		}
	}
	return out
}

// TestUpAgainWhileAPersonLooksAtAWindowOfTheirOwn: a member whose pane is
// gone gets a new one beside the lead, titled and coloured in the batch
// that makes it, though a window a person made by hand is the session's
// current one: that window's pane is left as it was.
func TestUpAgainWhileAPersonLooksAtAWindowOfTheirOwn(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	layout := e.WriteFile("own.yaml", "team: own\nmembers:\n  - {name: a, command: [sleep, \"1000\"], restart: never}\n  - {name: b, command: [sleep, \"1000\"], restart: never}\n")
	e.MustRun("up", layout)
	if out, err := e.Tmux("teamctl-own", "new-window", "-t", "=own:", "-n", "mine"); err != nil {
		t.Fatal(err, out)
	}
	b := func() string {
		out, _ := e.Tmux("teamctl-own", "list-panes", "-a", "-F", "#{@teamctl-member} #{pane_id}")
		for _, l := range strings.Split(out, "\n") {
			if id, ok := strings.CutPrefix(l, "b "); ok {
				return id
			}
		}
		return ""
	}
	old := b()
	if out, err := e.Tmux("teamctl-own", "kill-pane", "-t", old); err != nil {
		t.Fatal(err, out)
	}
	e.MustRun("up", layout)
	out, _ := e.Tmux("teamctl-own", "list-panes", "-a", "-F", "#{window_name}:#{pane_title}:#{@teamctl-member}")
	got := strings.Split(strings.TrimSpace(out), "\n")
	if len(got) != 3 || got[0] != "a:a:a" || got[1] != "a:b:b" || !strings.HasPrefix(got[2], "mine:") || strings.HasSuffix(got[2], ":b") {
		t.Errorf("panes (window:title:member):\n%s", out)
	}
	if now := b(); now == "" || now == old {
		t.Errorf("b's pane %q, was %q", now, old)
	}
}
