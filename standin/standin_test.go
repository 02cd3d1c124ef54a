package standin

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
)

// waitLimit is when a wait for the stand-in gives up: generous, since a wait
// returns as soon as what it waits for happens, and a loaded machine is slow.
const waitLimit = time.Minute

// screen collects what the stand-in writes and wakes waiters on every write.
type screen struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
	hook    func(p []byte) // if set, sees every write before it returns
}

func newScreen() *screen { return &screen{changed: make(chan struct{})} }

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.changed)
	s.changed = make(chan struct{})
	if s.hook != nil {
		s.hook(p)
	}
	return s.buf.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits until the output holds want, after the output's first `after` bytes.
func (s *screen) waitFor(t *testing.T, after int, want string) int {
	t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		out, ch := s.buf.String(), s.changed
		s.mu.Unlock()
		if i := strings.Index(out[after:], want); i >= 0 {
			return after + i + len(want)
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("no %q in the output after %v:\n%s", want, waitLimit, out[after:])
		}
	}
}

type standIn struct {
	scr   *screen
	stdin *io.PipeWriter
	done  chan struct{}
	code  int
}

// setEnv gives the test a private Claude config folder and a quick default turn.
func setEnv(t *testing.T, script string) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("CLAUDE_CONFIG_DIR", dir)
	t.Setenv("CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS", "1")
	t.Setenv("TEAMCTL_STANDIN_SCRIPT", script)
	t.Setenv("TEAMCTL_STANDIN_WORK", "20ms")
	t.Setenv("TMUX", "") // a spawn step must never reach a tmux server the tests run in
	t.Setenv("TMUX_PANE", "")
	return dir
}

func start(t *testing.T, args ...string) *standIn {
	t.Helper()
	return startOn(t, newScreen(), args...)
}

// startOn is start with a screen of the test's own.
func startOn(t *testing.T, scr *screen, args ...string) *standIn {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	s := &standIn{scr: scr, stdin: pw, done: make(chan struct{})}
	go func() {
		s.code = run(ctx, args, pr, s.scr)
		close(s.done)
	}()
	t.Cleanup(func() {
		cancel()
		pw.Close()
		s.wait(t)
	})
	return s
}

func (s *standIn) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-s.done:
		return s.code
	case <-time.After(waitLimit):
		t.Fatalf("stand-in still running after %v", waitLimit)
		return 0
	}
}

func (s *standIn) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// typeKeys types keys as they are, as a terminal in key mode passes them on.
func (s *standIn) typeKeys(t *testing.T, keys string) {
	t.Helper()
	if _, err := io.WriteString(s.stdin, keys); err != nil {
		t.Fatal(err)
	}
}

func (s *standIn) typeLine(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

const sessionID = "12345678-1234-4234-8234-123456789abc"

func TestLeadWritesTeamConfig(t *testing.T) {
	dir := setEnv(t, "")
	s := start(t, "--session-id", sessionID, "--teammate-mode", "tmux", "--model", "opus")
	path := filepath.Join(dir, "teams", "session-12345678", "config.json")
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := claudecode.WaitTeamConfig(ctx, path); err != nil {
		t.Fatal(err)
	}
	cfg, err := claudecode.ReadTeamConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.LeadSessionID != sessionID || cfg.LeadProcess.PID != os.Getpid() || cfg.Members[0].Name != "team-lead" {
		t.Errorf("config = %+v", cfg)
	}
	at := s.scr.waitFor(t, 0, "✻ Claude Code (stand-in) · lead · model opus")
	at = s.scr.waitFor(t, at, "\n"+strings.Repeat("─", 60)+"\n❯ \n")
	s.scr.waitFor(t, at, "⏵⏵ auto mode on (shift+tab to cycle)")
}

func TestLeadWithoutAgentTeamsWritesNothing(t *testing.T) {
	dir := setEnv(t, "")
	t.Setenv("CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS", "")
	s := start(t, "--session-id", sessionID)
	s.scr.waitFor(t, 0, "auto mode on") // the config would be written before the first screen
	if _, err := os.Stat(filepath.Join(dir, "teams")); !os.IsNotExist(err) {
		t.Errorf("teams folder: %v", err)
	}
}

func TestTeammateTakesTurnsFromItsInbox(t *testing.T) {
	dir := setEnv(t, "")
	inbox, err := claudecode.InboxPath(dir, "session-12345678", "researcher")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := claudecode.AppendMessage(ctx, inbox, claudecode.PromptMessage("find the bug\nin foo.go", time.Now())); err != nil {
		t.Fatal(err)
	}
	s := start(t, "--agent-id", "researcher@session-12345678", "--agent-name", "researcher",
		"--team-name", "session-12345678", "--permission-mode", "manual")
	s.stdin.Close() // a closed stdin must not end the stand-in

	at := s.scr.waitFor(t, 0, "Message from @team-lead:\nfind the bug\nin foo.go\n")
	at = s.scr.waitFor(t, at, "Worked for")
	at = s.scr.waitFor(t, at, "──── @researcher ──")
	at = s.scr.waitFor(t, at, "⏸ manual mode on · ? for shortcuts")
	msgs, err := claudecode.ReadMailbox(inbox)
	if err != nil || len(msgs) != 1 || !msgs[0].Read {
		t.Fatalf("inbox after the turn: %+v, %v", msgs, err)
	}

	// A message arriving while idle is a new turn too.
	if err := claudecode.AppendMessage(ctx, inbox, claudecode.Message{From: "lead2", Text: "again", Timestamp: "t"}); err != nil {
		t.Fatal(err)
	}
	s.scr.waitFor(t, at, "Message from @lead2:\nagain\n")
	if s.exited() {
		t.Fatal("stand-in exited")
	}
}

func TestPromptAndTypedTurns(t *testing.T) {
	setEnv(t, "")
	s := start(t, "--session-id", sessionID, "--", "-starts with a dash")
	at := s.scr.waitFor(t, 0, "❯ -starts with a dash\n")
	at = s.scr.waitFor(t, at, "esc to interrupt")
	at = s.scr.waitFor(t, at, "✻ Worked for 0s\n")
	at = s.scr.waitFor(t, at, "auto mode on")
	s.typeLine(t, "next please")
	at = s.scr.waitFor(t, at, "❯ next please\n")
	s.scr.waitFor(t, at, "auto mode on")
}

func TestScriptWorkAndBusy(t *testing.T) {
	setEnv(t, "work:250ms,busy:250ms,exit:0")
	s := start(t)
	at := s.scr.waitFor(t, 0, "✢ Working… (esc to interrupt)")
	at = s.scr.waitFor(t, at, "✻ Worked for ")
	s.scr.waitFor(t, at, "busy: output line 2\n")
	if code := s.wait(t); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

func TestScriptAsk(t *testing.T) {
	setEnv(t, "ask,ask:Continue? [y/n],exit:4")
	s := start(t)
	at := s.scr.waitFor(t, 0, "Overwrite? (y/n) ")
	if s.exited() {
		t.Fatal("did not wait for an answer")
	}
	s.typeLine(t, "y")
	at = s.scr.waitFor(t, at, "answered: y\n")
	at = s.scr.waitFor(t, at, "Continue? [y/n] ")
	s.typeLine(t, "no way")
	s.scr.waitFor(t, at, "answered: no way\n")
	if code := s.wait(t); code != 4 {
		t.Errorf("exit code %d", code)
	}
}

// TestScriptPermission: the permission dialog takes keys as Claude Code's
// does: a digit chooses at once, Enter the selected option, Esc No, the
// arrows move; y and n do nothing, so `n Enter` runs the command.
func TestScriptPermission(t *testing.T) {
	for _, tc := range []struct{ name, keys, want string }{
		{"enter", "\n", "Running…"}, {"digit", "1", "Running…"}, {"y enter", "y\n", "Running…"},
		{"n enter", "n\n", "Running…"}, {"its no", "3", "Denied"}, {"esc", "\x1b", "Denied"},
		{"arrows", "\x1b[B\x1b[B\n", "Denied"}, {"down and up", "\x1b[B\x1b[A\n", "Running…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setEnv(t, "permission")
			s := start(t)
			at := s.scr.waitFor(t, 0, " Do you want to proceed?\n ❯ 1. Yes\n   2. Yes, and always allow access to build/ from this project\n   3. No\n\n Esc to cancel · Tab to amend")
			s.typeKeys(t, tc.keys)
			at = s.scr.waitFor(t, at, tc.want+"\n")
			s.scr.waitFor(t, at, "auto mode on") // idle afterwards
		})
	}
}

// TestScriptPlan: the plan approval, numbered, with no Esc.
func TestScriptPlan(t *testing.T) {
	for _, tc := range []struct{ keys, want string }{
		{"y\n", "chose: 1. Yes, and use auto mode"}, {"2", "chose: 2. Yes, manually approve edits"},
		{"\x1bn3", "chose: 3. Tell Claude what to change"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			setEnv(t, "plan")
			s := start(t)
			at := s.scr.waitFor(t, 0, "Would you like to proceed?\n ❯ 1. Yes, and use auto mode\n")
			s.typeKeys(t, tc.keys)
			s.scr.waitFor(t, at, tc.want+"\n")
		})
	}
}

func TestScriptExitCode(t *testing.T) {
	setEnv(t, "exit:3")
	if code := start(t).wait(t); code != 3 {
		t.Errorf("exit code %d, want 3", code)
	}
}

func TestBadSettingsExit2(t *testing.T) {
	for _, env := range [][2]string{
		{"TEAMCTL_STANDIN_SCRIPT", "work:1s,dance"},
		{"TEAMCTL_STANDIN_WORK", "soon"},
	} {
		setEnv(t, "")
		t.Setenv(env[0], env[1])
		var out bytes.Buffer
		if code := run(context.Background(), nil, strings.NewReader(""), &out); code != 2 {
			t.Errorf("%s=%s: exit code %d, want 2", env[0], env[1], code)
		}
		if !strings.Contains(out.String(), env[0]) {
			t.Errorf("%s=%s: message %q", env[0], env[1], out.String())
		}
	}
}

func TestMainExits(t *testing.T) {
	setEnv(t, "exit:5")
	var out bytes.Buffer
	if code := Main(nil, strings.NewReader(""), &out); code != 5 {
		t.Errorf("Main = %d", code)
	}
}

var logLine = regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d{3} (?:build step|test shard|fetched chunk|compiled unit) (\d+) (?:ok|passed|\(4096 bytes\))$`)

// logLineNumbers are the numbers of the log lines in out, in order.
func logLineNumbers(t *testing.T, out string) []int {
	t.Helper()
	var ns []int
	for _, m := range logLine.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		ns = append(ns, n)
	}
	for i, n := range ns {
		if n != i+1 {
			t.Fatalf("log line %d is numbered %d:\n%s", i+1, n, out)
		}
	}
	return ns
}

func TestScriptLinesForAWhile(t *testing.T) {
	const rate, dur = 200, 500 * time.Millisecond
	setEnv(t, fmt.Sprintf("lines:%d:%s,ask", rate, dur))
	s := start(t)
	s.scr.waitFor(t, 0, "build step 1 ok\n")
	at := s.scr.waitFor(t, 0, "Overwrite? (y/n) ") // the next step, once the lines are done
	out := s.scr.String()[:at]
	n := len(logLineNumbers(t, out))
	if lines := strings.Count(out, "\n"); lines != n+2 { // the header and the blank line under it
		t.Errorf("%d lines, %d of them log lines:\n%s", lines, n, out)
	}
	// As many as asked, however long a busy machine took to print them.
	if want := int(rate * dur / time.Second); n != want {
		t.Errorf("%d log lines for %v at %d a second, want %d", n, dur, rate, want)
	}
}

func TestScriptLinesForever(t *testing.T) {
	const rate, upTo = 500, 100
	setEnv(t, fmt.Sprintf("lines:%d", rate))
	s := start(t)
	s.scr.waitFor(t, 0, "build step 1 ok\n")
	began := time.Now()
	s.scr.waitFor(t, 0, fmt.Sprintf(" test shard %d passed\n", upTo+2))
	// Lines 2 to upTo+2 came at most one a tick.
	if took, least := time.Since(began), (upTo-1)*time.Second/rate; took < least {
		t.Errorf("%d lines in %v, faster than %d a second", upTo+1, took, rate)
	}
	logLineNumbers(t, s.scr.String())
	if s.exited() {
		t.Fatal("stand-in exited")
	}
}

// TestScriptPromptAtWritesTheTimeBeforeThePrompt: the time prompt-at records
// is taken before the question is written (nothing sees it earlier: a latency
// measured from it is never below the truth) and reaches the file after it.
func TestScriptPromptAtWritesTheTimeBeforeThePrompt(t *testing.T) {
	file := filepath.Join(t.TempDir(), "prompts.log")
	if err := os.WriteFile(file, []byte("earlier\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	setEnv(t, "prompt-at:"+file+",prompt-at:"+file+":Proceed? [Y/n],exit:6")
	type seen struct {
		lines int       // lines in the file while the prompt was being written
		at    time.Time // when it was
	}
	var mu sync.Mutex
	var prompts []seen
	scr := newScreen()
	scr.hook = func(p []byte) {
		if q := string(p); q == "Overwrite? (y/n) " || q == "Proceed? [Y/n] " {
			data, _ := os.ReadFile(file)
			mu.Lock()
			prompts = append(prompts, seen{strings.Count(string(data), "\n"), time.Now()})
			mu.Unlock()
		}
	}
	s := startOn(t, scr)
	at := s.scr.waitFor(t, 0, "Overwrite? (y/n) ")
	s.typeLine(t, "y")
	at = s.scr.waitFor(t, at, "answered: y\nProceed? [Y/n] ")
	s.typeLine(t, "")
	s.scr.waitFor(t, at, "answered: \n")
	if code := s.wait(t); code != 6 {
		t.Errorf("exit code %d", code)
	}

	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	mu.Lock()
	defer mu.Unlock()
	if len(lines) != 3 || lines[0] != "earlier" || len(prompts) != 2 {
		t.Fatalf("file %q after prompts %+v", data, prompts)
	}
	for i, p := range prompts {
		if p.lines != i+1 {
			t.Errorf("prompt %d: the file had %d lines while it was written, want %d", i+1, p.lines, i+1)
		}
		stamp, err := time.Parse(time.RFC3339Nano, lines[i+1])
		if err != nil {
			t.Fatalf("line %q: %v", lines[i+1], err)
		}
		if stamp.After(p.at.Round(0)) {
			t.Errorf("prompt %d: time %v is after the prompt was seen (%v)", i+1, stamp, p.at)
		}
	}
}

func TestScriptPromptAtWithoutItsFileStillAsks(t *testing.T) {
	setEnv(t, "prompt-at:"+filepath.Join(t.TempDir(), "no", "such", "dir", "p.log")+",exit:0")
	s := start(t)
	at := s.scr.waitFor(t, 0, "stand-in: prompt-at: open ")
	at = s.scr.waitFor(t, at, "\nOverwrite? (y/n) ")
	s.typeLine(t, "n")
	s.scr.waitFor(t, at, "answered: n\n")
	if code := s.wait(t); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

func TestScriptSpawnNeedsALeadInTmux(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no session", nil, "only a lead"},
		{"teammate", []string{"--agent-id", "r@session-12345678", "--agent-name", "r", "--team-name", "session-12345678"}, "only a lead"},
		{"in-process", []string{"--session-id", sessionID, "--teammate-mode", "in-process"}, "--teammate-mode in-process opens no panes"},
		{"outside tmux", []string{"--session-id", sessionID, "--teammate-mode", "tmux"}, "not inside tmux"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setEnv(t, "spawn:helper:ask,ask:Still here?")
			s := start(t, tc.args...)
			at := s.scr.waitFor(t, 0, "stand-in: spawn @helper: "+tc.want)
			s.scr.waitFor(t, at, "\nStill here? ") // it carries on
			if out := s.scr.String(); strings.Contains(out, "Spawned") {
				t.Errorf("output:\n%s", out)
			}
		})
	}
}
