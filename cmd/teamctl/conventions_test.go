package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/teamctl/teamctl/internal/testenv"
)

// Tests from outside for issue 11's conventions (items 9-13, and item 1's
// `teams` flag): what users of gh, kubectl and docker compose expect.

// TestUsageErrorsExitTwo: every command used wrongly (wrong number of
// arguments, an unknown flag, --team where it does not apply) exits 2 with
// the message and one line pointing at its help; a runtime error exits 1
// without it. None of these needs a team.
func TestUsageErrorsExitTwo(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	layout := standInLayout(e, "team.yaml", "team: usage\n")
	for _, c := range []struct {
		args []string
		help string // the command whose help the hint names
		say  string // in the message
	}{
		{[]string{"nosuch"}, "teamctl", `unknown command "nosuch"`},
		{[]string{"up"}, "teamctl up", "has none of teamctl.yaml, teamctl.yml, .teamctl.yaml, .teamctl.yml: give its LAYOUT file"},
		{[]string{"up", layout, "extra"}, "teamctl up", "accepts at most 1 arg"},
		{[]string{"up", "--all", layout}, "teamctl up", "give no LAYOUT with it"},
		{[]string{"down", "extra"}, "teamctl down", `unknown command "extra"`},
		{[]string{"status", "extra"}, "teamctl status", `unknown command "extra"`},
		{[]string{"status", "--watch", "--json"}, "teamctl status", "do not go together"},
		{[]string{"attach"}, "teamctl attach", "accepts 1 arg"},
		{[]string{"validate"}, "teamctl validate", "no layout file given"},
		{[]string{"validate", "a", "b"}, "teamctl validate", "accepts at most 1 arg"},
		{[]string{"demo", "extra"}, "teamctl demo", `unknown command "extra"`},
		{[]string{"doctor", "a", "b"}, "teamctl doctor", "accepts at most 1 arg"},
		{[]string{"teams", "extra"}, "teamctl teams", `unknown command "extra"`},
		{[]string{"supervise", "extra"}, "teamctl supervise", `unknown command "extra"`},
		{[]string{"events", "extra"}, "teamctl events", `unknown command "extra"`},
		{[]string{"events", "--since", "yesterday"}, "teamctl events", "--since"},
		{[]string{"events", "--tail", "-3"}, "teamctl events", "--tail"},
		{[]string{"answer"}, "teamctl answer", "which member?"},
		{[]string{"answer", "lead"}, "teamctl answer", "what answer? y, n or an option's number"},
		{[]string{"answer", "lead", "n", "Enter"}, "teamctl answer", "one answer: y, n or an option's number; to send keys as they are: teamctl answer lead --keys n Enter"},
		{[]string{"answer", "lead", "--keys"}, "teamctl answer", "--keys needs the keys"},
		{[]string{"answer", "lead", "y", "--option", "Yes"}, "teamctl answer", "--option is the answer"},
		{[]string{"answer", "lead", "--keys", "y", "--option", "Yes"}, "teamctl answer", "do not go together"},
		{[]string{"run"}, "teamctl run", "requires at least 1 arg"},
		{[]string{"approve"}, "teamctl approve", "accepts 1 arg"},
		{[]string{"deny"}, "teamctl deny", "accepts 1 arg"},
		{[]string{"send", "lead"}, "teamctl send", "accepts 2 arg"},
		{[]string{"inbox"}, "teamctl inbox", "accepts 1 arg"},
		{[]string{"tasks", "extra"}, "teamctl tasks", `unknown command "extra"`},
		{[]string{"clean", "a", "b"}, "teamctl clean", "accepts at most 1 arg"},
		{[]string{"clean", "a", "--team", "b"}, "teamctl clean", "two teams"},
		{[]string{"restart"}, "teamctl restart", "accepts 1 arg"},
		{[]string{"snapshots", "extra"}, "teamctl snapshots", `unknown command "extra"`},
		{[]string{"snapshots", "--team", "Bad Name"}, "teamctl snapshots", "not a team name"},
		{[]string{"restore"}, "teamctl restore", "accepts between 1 and 2 arg"},
		{[]string{"clean", "--older-than", "30d"}, "teamctl clean", "--older-than goes with --snapshots"},
		{[]string{"clean", "--snapshots", "--older-than", "soon"}, "teamctl clean", "--older-than"},
		{[]string{"logs", "a", "b"}, "teamctl logs", "accepts at most 1 arg"},
		{[]string{"logs", "lead", "-n", "-1"}, "teamctl logs", "-n -1"},
		{[]string{"version", "extra"}, "teamctl version", `unknown command "extra"`},
		{[]string{"completion", "bash", "extra"}, "teamctl completion bash", `unknown command "extra"`},
		{[]string{"down", "--timeout", "soon"}, "teamctl down", `invalid argument "soon"`},
		{[]string{"status", "--no-such-flag"}, "teamctl status", "unknown flag: --no-such-flag"},
		{[]string{"up", "--no-such-flag", layout}, "teamctl up", "unknown flag: --no-such-flag"},
		{[]string{"clean", "--no-such-flag"}, "teamctl clean", "unknown flag: --no-such-flag"},
		{[]string{"run", "--no-such-flag", "--", "true"}, "teamctl run", "unknown flag: --no-such-flag"},
		// --team only where a command acts on one team.
		{[]string{"validate", "--team", "x", layout}, "teamctl validate", "unknown flag: --team"},
		{[]string{"teams", "--team", "x"}, "teamctl teams", "unknown flag: --team"},
		{[]string{"doctor", "--team", "x"}, "teamctl doctor", "unknown flag: --team"},
		{[]string{"up", "--team", "x", layout}, "teamctl up", "unknown flag: --team"},
		{[]string{"demo", "--team", "x"}, "teamctl demo", "unknown flag: --team"},
		{[]string{"version", "--team", "x"}, "teamctl version", "unknown flag: --team"},
		{[]string{"run", "--team", "x", "--", "true"}, "teamctl run", "unknown flag: --team"},
	} {
		r := e.Run(c.args...)
		hint := fmt.Sprintf("see '%s --help'\n", c.help)
		if r.Code != 2 || !strings.HasPrefix(r.Stderr, "teamctl: ") || !strings.Contains(r.Stderr, c.say) || !strings.HasSuffix(r.Stderr, hint) {
			t.Errorf("teamctl %s: exit %d, want 2 with %q and then %q; stderr:\n%s", strings.Join(c.args, " "), r.Code, c.say, hint, r.Stderr)
		}
		if r.Stdout != "" {
			t.Errorf("teamctl %s: a usage error printed on stdout:\n%s", strings.Join(c.args, " "), r.Stdout)
		}
	}
	// Runtime errors: exit 1, no pointer to the help.
	for _, args := range [][]string{{"status"}, {"status", "--team", "nosuch"}, {"validate", filepath.Join(e.Work, "missing.yaml")}} {
		r := e.Run(args...)
		if r.Code != 1 || strings.Contains(r.Stderr, "--help") {
			t.Errorf("teamctl %s: exit %d, want 1 without a help hint; stderr:\n%s", strings.Join(args, " "), r.Code, r.Stderr)
		}
	}
	// The flags that do apply are accepted, and each help has its examples.
	for _, args := range [][]string{{"status", "--help"}, {"clean", "--help"}, {"events", "--help"}, {"up", "--help"}} {
		r := e.MustRun(args...)
		if !strings.Contains(r.Stdout, "\nExamples:\n") {
			t.Errorf("teamctl %s has no Examples section:\n%s", strings.Join(args, " "), r.Stdout)
		}
		if args[0] != "up" && !strings.Contains(r.Stdout, "--team") {
			t.Errorf("teamctl %s does not offer --team:\n%s", strings.Join(args, " "), r.Stdout)
		}
		if args[0] == "up" && strings.Contains(r.Stdout, "--team") {
			t.Errorf("teamctl up offers --team, which it does not use:\n%s", r.Stdout)
		}
	}
}

// TestStandInHelpPrintsHelp: `teamctl stand-in --help` prints its help and
// exits, instead of starting the stand-in (which would wait for input).
func TestStandInHelpPrintsHelp(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	r := runWith(t, e, 30*time.Second, "", nil, nil, "stand-in", "--help")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Usage:") || !strings.Contains(r.Stdout, "stand-in for Claude Code") || !strings.Contains(r.Stdout, "Examples:") {
		t.Errorf("stand-in --help: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestDownWithNothingUp: down with no team up exits 0 and says there was
// nothing to stop; down of a team already down too (named, or the team of
// the folder it runs in), leaving its record of when it went down as it was.
func TestDownWithNothingUp(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	r := e.Run("down")
	if r.Code != 0 || !strings.Contains(r.Stdout, "no team is up; nothing to stop") {
		t.Errorf("down with nothing up: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	e.MustRun("up", standInLayout(e, "team.yaml", "team: gone\n"))
	e.MustRun("down", "--team", "gone")
	before, _ := readState(t, e, "gone")
	if before.StoppedAt == nil {
		t.Fatal("down recorded no stop")
	}
	// Run in its folder, down means the team there, which is down already.
	r = e.Run("down")
	if r.Code != 0 || !strings.Contains(r.Stdout, "team gone is already down") || !strings.Contains(r.Stdout, "nothing to stop") {
		t.Errorf("down with only a down team: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	r = e.Run("down", "--team", "gone")
	if r.Code != 0 || !strings.Contains(r.Stdout, "team gone is already down") || !strings.Contains(r.Stdout, "nothing to stop") {
		t.Errorf("down of a team already down: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if after, _ := readState(t, e, "gone"); after.StoppedAt == nil || !after.StoppedAt.Equal(*before.StoppedAt) {
		t.Errorf("down of a team already down rewrote when it went down: %v, was %v", after.StoppedAt, before.StoppedAt)
	}
}

// TestEmptyListingsSaySo: teams with no team, tasks and inbox of a team that
// has none say so in words on stdout and exit 0; --json prints [].
func TestEmptyListingsSaySo(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"teams"}, "no teams up"},
	} {
		r := e.MustRun(c.args...)
		if !strings.HasPrefix(r.Stdout, c.want) || strings.Contains(r.Stdout, "TEAM ") {
			t.Errorf("%v: %q", c.args, r.Stdout)
		}
		if r := e.MustRun(append(c.args, "--json")...); strings.TrimSpace(r.Stdout) != "[]" {
			t.Errorf("%v --json: %q", c.args, r.Stdout)
		}
	}
	e.MustRun("up", standInLayout(e, "team.yaml", "team: bare\n"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tasks", "--team", "bare"}, "no tasks\n"},
		{[]string{"inbox", "lead", "--team", "bare"}, "no messages for lead\n"},
	} {
		if r := e.MustRun(c.args...); r.Stdout != c.want {
			t.Errorf("%v: %q, want %q", c.args, r.Stdout, c.want)
		}
		if r := e.MustRun(append(c.args, "--json")...); strings.TrimSpace(r.Stdout) != "[]" {
			t.Errorf("%v --json: %q", c.args, r.Stdout)
		}
	}
}

// TestCleanAsksFirst: clean --all-teams with down teams to remove asks on a
// terminal, listing the teams (no keeps everything, y removes it); without a
// terminal it never asks and needs --yes or a team name; a bare clean where
// two teams could be meant names neither and says --all-teams.
func TestCleanAsksFirst(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	for _, team := range []string{"old", "older"} {
		e.MustRun("up", standInLayout(e, team+".yaml", "team: "+team+"\n"))
		e.MustRun("down", "--team", team)
	}
	stateDir := func(team string) string { return filepath.Join(e.StateHome, "teamctl", team) }

	if r := e.Run("clean"); r.Code != 1 || !strings.Contains(r.Stderr, "is in teams old, older") || !strings.Contains(r.Stderr, "--all-teams") {
		t.Errorf("a bare clean where two teams could be meant: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	r := e.Run("clean", "--all-teams")
	if r.Code != 2 || !strings.Contains(r.Stderr, "old") || !strings.Contains(r.Stderr, "older") || !strings.Contains(r.Stderr, "--yes") || !strings.Contains(r.Stderr, "see 'teamctl clean --help'") {
		t.Errorf("clean without a terminal: exit %d, want 2 naming the teams and --yes\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if !exists(stateDir("old")) || !exists(stateDir("older")) {
		t.Fatal("clean without a terminal or --yes removed a team")
	}
	if r := e.MustRun("clean", "--all-teams", "--dry-run"); !strings.Contains(r.Stdout, "dry run, nothing changed") {
		t.Errorf("clean --dry-run:\n%s", r.Stdout)
	}

	// On a terminal: the teams are listed and the question asked.
	screen, code := cleanThroughPTY(t, e, "n\r")
	if code != 1 || !strings.Contains(screen, "old, older") || !strings.Contains(screen, "remove these? [y/N]") || !strings.Contains(screen, "nothing removed") {
		t.Errorf("clean answered n: exit %d; terminal:\n%s", code, screen)
	}
	if !exists(stateDir("old")) || !exists(stateDir("older")) {
		t.Fatal("clean removed a team although the answer was no")
	}

	// A team named is cleaned without a question, terminal or not.
	e.MustRun("clean", "older")
	if exists(stateDir("older")) || !exists(stateDir("old")) {
		t.Errorf("clean older: older's state %v, old's %v", exists(stateDir("older")), exists(stateDir("old")))
	}

	screen, code = cleanThroughPTY(t, e, "y\r")
	if code != 0 || !strings.Contains(screen, "remove these? [y/N]") || exists(stateDir("old")) {
		t.Errorf("clean answered y: exit %d, old's state still there: %v; terminal:\n%s", code, exists(stateDir("old")), screen)
	}

	// Nothing left: no question, no --yes needed.
	if r := e.MustRun("clean"); !strings.Contains(r.Stdout, "nothing to clean") {
		t.Errorf("clean with nothing to do:\n%s", r.Stdout)
	}
}

// cleanThroughPTY runs `teamctl clean --all-teams` in a pseudo-terminal,
// answers its question with answer, and returns what the terminal showed and
// the exit code.
func cleanThroughPTY(t *testing.T, e *testenv.Env, answer string) (string, int) {
	t.Helper()
	return cleanThroughPTYIn(t, e, e.Work, answer, "--all-teams")
}

// cleanThroughPTYIn is cleanThroughPTY in dir, with args.
func cleanThroughPTYIn(t *testing.T, e *testenv.Env, dir, answer string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, append([]string{"clean"}, args...)...)
	cmd.Env = append(e.Environ(), "TERM=xterm-256color")
	cmd.Dir = dir
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := &ptyOutput{}
	done := make(chan struct{})
	go func() { bytesCopy(out, f); close(done) }()
	testenv.Eventually(t, 30*time.Second, "clean's question on the terminal", func() (bool, string) {
		s := out.String()
		return strings.Contains(s, "[y/N]"), s
	})
	f.Write([]byte(answer))
	err = cmd.Wait()
	<-done
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("clean: %v; terminal:\n%s", err, out.String())
	}
	return out.String(), code
}

// TestLongWaitsSayWhatTheyWaitFor: up says it waits for the lead's team
// config (here a lead that never writes one), and down says it waits for the
// teammates it asked to shut down (here ones that never do).
func TestLongWaitsSayWhatTheyWaitFor(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	// Claude Code members that only sleep: Claude Code's flags land in $0, $1….
	layout := e.WriteFile("team.yaml", `team: slow
claude:
  command: sh
  args: [-c, "exec sleep 600"]
lead: {}
members:
  - name: mate
    prompt: hello
`)
	if r := e.MustRun("up", layout, "-q", "--config-wait", "1s"); r.Stdout != "" {
		t.Errorf("up -q printed:\n%s", r.Stdout)
	}
	e.MustRun("down", "--team", "slow", "--now")
	r := e.MustRun("up", layout, "--config-wait", "1s")
	if !strings.Contains(r.Stdout, "waiting up to 1s for the lead's team config") {
		t.Errorf("up does not say what it waits for:\n%s", r.Stdout)
	}
	r = e.MustRun("down", "--team", "slow", "--timeout", "2s")
	if !strings.Contains(r.Stderr, "asked 1 teammate(s) to shut down; waiting up to 1s") {
		t.Errorf("down does not say what it waits for:\nstdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	}
}

// TestRunQuietPeriod: run's duration flag is --quiet-period (up's -q/--quiet
// is a switch); the old --quiet still works, with a note.
func TestRunQuietPeriod(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	script := e.WriteFile("ask.sh", "printf 'Continue? [y/n] '\nread answer\necho \"got $answer\"\n")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, "run", "--quiet-period", "300ms", "--", "sh", script)
	cmd.Env = e.Environ()
	stdin, _ := cmd.StdinPipe()
	var stdout, stderr safeBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 20*time.Second, "run --quiet-period to report the prompt", func() (bool, string) {
		return strings.Contains(stderr.String(), "waiting for input: Continue? [y/n]"), stderr.String()
	})
	stdin.Write([]byte("y\n"))
	if err := cmd.Wait(); err != nil || !strings.Contains(stdout.String(), "got y") {
		t.Errorf("run: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	help := e.MustRun("run", "--help").Stdout
	if !strings.Contains(help, "--quiet-period duration") || regexp.MustCompile(`--quiet\b[^-]`).MatchString(help) {
		t.Errorf("run --help:\n%s", help)
	}
	r := e.MustRun("run", "--quiet", "300ms", "--", "true")
	if !strings.Contains(r.Stderr, "--quiet-period") {
		t.Errorf("run --quiet says nothing of --quiet-period: %q", r.Stderr)
	}
}

// TestValidateJSONAndTheWorktreeForm: validate --json reports each problem
// with its place, exit 1 when invalid; `worktree:` that is not a switch is
// told about the {branch, base} form.
func TestValidateJSONAndTheWorktreeForm(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	bad := e.WriteFile("bad.yaml", "team: wt\nlayout: spiral\nmembers:\n  - name: a\n    worktree: fix/auth\n")
	r := e.Run("validate", bad)
	if r.Code != 1 || !strings.Contains(r.Stderr, bad+":5:15: members[0].worktree:") || !strings.Contains(r.Stderr, "{branch: NAME, base: REF}") || !strings.Contains(r.Stderr, "{branch: fix/auth}") {
		t.Errorf("validate: exit %d\n%s", r.Code, r.Stderr)
	}
	type problem struct {
		File    string `json:"file"`
		Line    int    `json:"line"`
		Col     int    `json:"col"`
		Path    string `json:"path"`
		Message string `json:"message"`
	}
	var v struct {
		File     string    `json:"file"`
		Valid    bool      `json:"valid"`
		Team     string    `json:"team"`
		Problems []problem `json:"problems"`
	}
	r = e.Run("validate", "--json", bad)
	if err := json.Unmarshal([]byte(r.Stdout), &v); err != nil {
		t.Fatalf("validate --json: %v\n%s", err, r.Stdout)
	}
	if r.Code != 1 || v.Valid || v.File != bad || len(v.Problems) != 2 {
		t.Fatalf("validate --json of a bad layout: exit %d %+v", r.Code, v)
	}
	if p := v.Problems[0]; p != (problem{bad, 2, 9, "layout", p.Message}) || !strings.Contains(p.Message, "spiral") {
		t.Errorf("first problem: %+v", p)
	}
	if p := v.Problems[1]; p.Line != 5 || p.Col != 15 || p.Path != "members[0].worktree" || !strings.Contains(p.Message, "{branch: NAME, base: REF}") {
		t.Errorf("second problem: %+v", p)
	}
	good := standInLayout(e, "good.yaml", "team: fine\n")
	r = e.MustRun("validate", "--json", good)
	v.Problems = nil
	if err := json.Unmarshal([]byte(r.Stdout), &v); err != nil || !v.Valid || v.Team != "fine" || v.Problems == nil || len(v.Problems) != 0 {
		t.Errorf("validate --json of a good layout: %v\n%s", err, r.Stdout)
	}
}

// TestEventsSinceAndTail: events --since a duration or a time, --tail N, with
// and without --json, and --tail with -f: the last N, then what comes.
func TestEventsSinceAndTail(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	dir := filepath.Join(e.StateHome, "teamctl", "evt")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	var lines strings.Builder
	for i, ago := range []time.Duration{2 * time.Hour, 30 * time.Minute, 5 * time.Minute, time.Minute} {
		fmt.Fprintf(&lines, `{"time":%q,"team":"evt","member":"m%d","kind":"idle"}`+"\n", now.Add(-ago).Format(time.RFC3339Nano), i)
	}
	events := filepath.Join(dir, "events.jsonl")
	if err := os.WriteFile(events, []byte(lines.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	members := func(out string) string {
		return strings.Join(regexp.MustCompile(`\bm\d\b`).FindAllString(out, -1), " ")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "m0 m1 m2 m3"},
		{[]string{"--since", "10m"}, "m2 m3"},
		{[]string{"--since", now.Add(-45 * time.Minute).Format(time.RFC3339)}, "m1 m2 m3"},
		{[]string{"--tail", "2"}, "m2 m3"},
		{[]string{"--tail", "0"}, ""},
		{[]string{"--since", "1h", "--tail", "1", "--json"}, "m3"},
		{[]string{"--since", "3h", "--json"}, "m0 m1 m2 m3"},
	} {
		r := e.MustRun(append([]string{"events", "--team", "evt"}, c.args...)...)
		if got := members(r.Stdout); got != c.want {
			t.Errorf("events %s: %q, want %q\n%s", strings.Join(c.args, " "), got, c.want, r.Stdout)
		}
		if strings.Contains(strings.Join(c.args, " "), "--json") && !strings.HasPrefix(r.Stdout, `{"time":`) {
			t.Errorf("events %s is not JSON:\n%s", strings.Join(c.args, " "), r.Stdout)
		}
	}

	// --tail 1 -f: the last one, then a new one as it is appended.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, "events", "--team", "evt", "--tail", "1", "-f")
	cmd.Env = e.Environ()
	var out safeBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	testenv.Eventually(t, 20*time.Second, "the last event", func() (bool, string) {
		return members(out.String()) == "m3", out.String()
	})
	f, err := os.OpenFile(events, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, `{"time":%q,"team":"evt","member":"m4","kind":"working"}`+"\n", time.Now().UTC().Format(time.RFC3339Nano))
	f.Close()
	testenv.Eventually(t, 20*time.Second, "the new event after the last one", func() (bool, string) {
		return members(out.String()) == "m3 m4", out.String()
	})
}

// convTeam brings up a team with a lead and a plain process, web.
func convTeam(t *testing.T, team string) (*testenv.Env, string, string) {
	e := testenv.New(t)
	body := "team: " + team + "\nlead: {}\nmembers:\n  - name: web\n    command: [sleep, \"600\"]\n"
	layout := standInLayout(e, "first.yaml", body)
	e.MustRun("up", layout)
	return e, layout, body
}

// TestAttachWithoutATerminalSaysSo: in words, not tmux's "open terminal failed".
func TestAttachWithoutATerminalSaysSo(t *testing.T) {
	t.Parallel()
	e, _, _ := convTeam(t, "noterm")
	r := e.Run("attach", "lead", "--team", "noterm")
	if r.Code != 1 || !strings.Contains(r.Stderr, "attach needs a terminal") {
		t.Errorf("attach without a terminal: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestTeamsFlagsATeamWithoutASupervisor: as status does, teams says a team is
// up without a supervisor (nothing watches or restarts it) and how to start one.
func TestTeamsFlagsATeamWithoutASupervisor(t *testing.T) {
	t.Parallel()
	e, _, _ := convTeam(t, "nosup")
	if r := e.MustRun("teams"); !regexp.MustCompile(`(?m)^nosup +yes +\S+ +\S+ +pid \d+`).MatchString(r.Stdout) || r.Stderr != "" {
		t.Errorf("teams with the supervisor running:\nstdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	}
	sup := statusOf(t, e, "nosup").Supervisor.PID
	if sup <= 0 {
		t.Fatal("no supervisor to stop")
	}
	syscall.Kill(sup, syscall.SIGKILL)
	testenv.Eventually(t, 20*time.Second, "the supervisor gone", func() (bool, string) {
		return !statusOf(t, e, "nosup").Supervisor.Running, ""
	})
	r := e.MustRun("teams")
	if !regexp.MustCompile(`(?m)^nosup +yes +\S+ +\S+ +NOT running`).MatchString(r.Stdout) || !strings.Contains(r.Stderr, "team nosup is up without a supervisor") || !strings.Contains(r.Stderr, "teamctl supervise --team nosup") {
		t.Errorf("teams without a supervisor:\nstdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	}
	var ts []struct {
		Team       string `json:"team"`
		Up         bool   `json:"up"`
		Supervisor struct {
			Running bool `json:"running"`
		} `json:"supervisor"`
	}
	if err := json.Unmarshal([]byte(e.MustRun("teams", "--json").Stdout), &ts); err != nil || len(ts) != 1 || !ts[0].Up || ts[0].Supervisor.Running {
		t.Errorf("teams --json: %v %+v", err, ts)
	}
}
