package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/testenv"
)

type event struct {
	Time     time.Time `json:"time"`
	Member   string    `json:"member"`
	Pane     string    `json:"pane"`
	Kind     string    `json:"kind"`
	Pattern  string    `json:"pattern"`
	Line     string    `json:"line"`
	ExitCode *int      `json:"exit_code"`
	Restarts int       `json:"restarts"`
	Origin   string    `json:"origin"`
	Keys     []string  `json:"keys"`
	Option   string    `json:"option"`
	Detail   string    `json:"detail"`
}

func events(t *testing.T, e *testenv.Env, team string) []event {
	t.Helper()
	r := e.MustRun("events", "--json", "--team", team)
	var out []event
	for _, ln := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		if ln == "" {
			continue
		}
		var ev event
		if err := json.Unmarshal([]byte(ln), &ev); err != nil {
			t.Fatalf("events --json line %q: %v", ln, err)
		}
		out = append(out, ev)
	}
	return out
}

func countEvents(evs []event, member, kind string) int {
	n := 0
	for _, e := range evs {
		if e.Member == member && e.Kind == kind {
			n++
		}
	}
	return n
}

// memberStatus mirrors one member of status --json with the supervisor's fields.
type memberStatus struct {
	Name      string   `json:"name"`
	Pane      string   `json:"pane"`
	PID       int      `json:"pid"`
	State     string   `json:"state"`
	Origin    string   `json:"origin"`
	Cwd       string   `json:"cwd"`
	Restarts  int      `json:"restarts"`
	Reason    string   `json:"reason"`
	LastLines []string `json:"last_lines"`
	Stall     *struct {
		Pattern string    `json:"pattern"`
		Line    string    `json:"line"`
		Since   time.Time `json:"since"`
	} `json:"stall"`
}

type fullStatus struct {
	Supervisor struct {
		Running bool `json:"running"`
		PID     int  `json:"pid"`
	} `json:"supervisor"`
	Members []memberStatus `json:"members"`
}

func statusOf(t *testing.T, e *testenv.Env, team string) fullStatus {
	t.Helper()
	var s fullStatus
	r := e.MustRun("status", "--json", "--team", team)
	if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
		t.Fatal(err, r.Stdout)
	}
	return s
}

func member(s fullStatus, name string) memberStatus {
	for _, m := range s.Members {
		if m.Name == name {
			return m
		}
	}
	return memberStatus{}
}

func waitMember(t *testing.T, e *testenv.Env, team, name string, timeout time.Duration, cond func(memberStatus) bool) memberStatus {
	t.Helper()
	var got memberStatus
	testenv.Eventually(t, timeout, name+"'s state", func() (bool, string) {
		got = member(statusOf(t, e, team), name)
		return cond(got), fmt.Sprintf("%+v", got)
	})
	return got
}

// TestStallIsReportedOnceAndClearedByAnAnswer: a member that asks
// `Overwrite? (y/n)` is stalled in status, with one stall event however long it
// waits; answering clears it, and answer and events show the keys as they
// were typed. A busy member that never asks is never stalled.
func TestStallIsReportedOnceAndClearedByAnAnswer(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: stall
watchdog: {quiet: 300ms}
members:
  - name: asker
    env: {TEAMCTL_STANDIN_SCRIPT: "work:1s,ask"}
  - name: busy
    env: {TEAMCTL_STANDIN_SCRIPT: "busy"}
`))
	m := waitMember(t, e, "stall", "asker", 20*time.Second, func(m memberStatus) bool { return m.State == "stalled" })
	if m.Stall == nil || m.Stall.Pattern != "yes-no" || m.Stall.Line != "Overwrite? (y/n)" {
		t.Fatalf("stall: %+v", m.Stall)
	}
	// Several quiet periods later there is still exactly one stall event.
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if n := countEvents(events(t, e, "stall"), "asker", "stall"); n != 1 {
			t.Fatalf("%d stall events for one stall", n)
		}
		if s := member(statusOf(t, e, "stall"), "busy"); s.State == "stalled" {
			t.Fatalf("the busy member is stalled: %+v", s)
		}
	}
	if r := e.MustRun("answer", "asker", "y", "--team", "stall"); r.Stdout != "sent y Enter to asker\n" {
		t.Errorf("answer says %q, want the keys as typed", r.Stdout)
	}
	waitMember(t, e, "stall", "asker", 10*time.Second, func(m memberStatus) bool { return m.State != "stalled" })
	evs := events(t, e, "stall")
	if countEvents(evs, "asker", "stall-cleared") != 1 || countEvents(evs, "asker", "answer") != 1 {
		t.Errorf("events after the answer: %+v", evs)
	}
	if out := e.MustRun("events", "--team", "stall").Stdout; !strings.Contains(out, "answer         keys y Enter by a person") {
		t.Errorf("events do not show the keys as typed:\n%s", out)
	}
	waitScreen(t, e, "teamctl-stall", m.Pane, "answered: y")
	if countEvents(evs, "busy", "stall") != 0 {
		t.Errorf("busy member got a stall event")
	}
}

// TestSupervisorKilledThenUpAdoptsAndCatchesAStall: kill -9 the supervisor; the
// members keep running; a stall that begins while no supervisor runs is still
// reported once `up` runs again, with no duplicate pane and no member lost.
func TestSupervisorKilledThenUpAdoptsAndCatchesAStall(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	goOn := filepath.Join(e.Work, "go-on")
	// late asks once the test says so: after its supervisor is gone.
	layout := standInLayout(e, "team.yaml", fmt.Sprintf(`team: phoenix
watchdog: {quiet: 300ms}
members:
  - name: late
    env: {TEAMCTL_STANDIN_SCRIPT: "wait-for:%s,ask:Continue? [y/n]"}
  - name: other
`, goOn))
	e.MustRun("up", layout)
	before := statusOf(t, e, "phoenix")
	if !before.Supervisor.Running {
		t.Fatal("no supervisor after up")
	}
	syscall.Kill(before.Supervisor.PID, syscall.SIGKILL)
	testenv.Eventually(t, 10*time.Second, "the supervisor to be gone", func() (bool, string) {
		s := statusOf(t, e, "phoenix")
		return !s.Supervisor.Running, fmt.Sprint(s.Supervisor)
	})
	if err := os.WriteFile(goOn, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	late := member(before, "late")
	waitScreen(t, e, "teamctl-phoenix", late.Pane, "Continue? [y/n]")
	for _, m := range before.Members {
		if !proc.Alive(m.PID) {
			t.Errorf("%s died with the supervisor", m.Name)
		}
	}
	if n := countEvents(events(t, e, "phoenix"), "late", "stall"); n != 0 {
		t.Fatalf("a stall was reported with no supervisor running (%d)", n)
	}
	e.MustRun("up", layout)
	m := waitMember(t, e, "phoenix", "late", 15*time.Second, func(m memberStatus) bool { return m.State == "stalled" })
	if m.Stall.Line != "Continue? [y/n]" {
		t.Errorf("stall line %q", m.Stall.Line)
	}
	after := statusOf(t, e, "phoenix")
	if len(after.Members) != len(before.Members) {
		t.Errorf("members before %d, after %d", len(before.Members), len(after.Members))
	}
	for i, m := range after.Members {
		if m.PID != before.Members[i].PID || m.Pane != before.Members[i].Pane {
			t.Errorf("%s: pane %s pid %d, was %s %d", m.Name, m.Pane, m.PID, before.Members[i].Pane, before.Members[i].PID)
		}
	}
	if out, _ := e.Tmux("teamctl-phoenix", "list-panes", "-a"); strings.Count(out, "\n") != 3 {
		t.Errorf("panes after the second up:\n%s", out)
	}
	// A supervisor started again does not report the same stall twice.
	s := statusOf(t, e, "phoenix")
	syscall.Kill(s.Supervisor.PID, syscall.SIGKILL)
	testenv.Eventually(t, 10*time.Second, "the supervisor to be gone", func() (bool, string) {
		return !statusOf(t, e, "phoenix").Supervisor.Running, ""
	})
	e.MustRun("up", layout)
	testenv.Eventually(t, 10*time.Second, "a third supervisor", func() (bool, string) {
		return statusOf(t, e, "phoenix").Supervisor.Running, ""
	})
	waitMember(t, e, "phoenix", "late", 10*time.Second, func(m memberStatus) bool { return m.State == "stalled" })
	if n := countEvents(events(t, e, "phoenix"), "late", "stall"); n != 1 {
		t.Errorf("%d stall events for one stall across supervisor restarts", n)
	}
}

// TestLeadSpawnedTeammateIsAdopted: a pane the lead opens itself (as Claude
// Code's lead does for its Agent tool) is adopted under the name the lead gave
// it in its team config, shown with origin "lead", its stall reported, and
// ended by down.
func TestLeadSpawnedTeammateIsAdopted(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: spawner
watchdog: {quiet: 300ms}
lead:
  env: {TEAMCTL_STANDIN_SCRIPT: "spawn:helper:work:1s;ask"}
`))
	m := waitMember(t, e, "spawner", "helper", 20*time.Second, func(m memberStatus) bool { return m.State == "stalled" })
	if m.Origin != "lead" || m.Stall.Line != "Overwrite? (y/n)" {
		t.Errorf("adopted member: %+v", m)
	}
	evs := events(t, e, "spawner")
	if countEvents(evs, "helper", "adopted") != 1 || countEvents(evs, "helper", "stall") != 1 {
		t.Errorf("events: %+v", evs)
	}
	if s := member(statusOf(t, e, "spawner"), "lead"); s.Origin != "layout" {
		t.Errorf("lead origin %q", s.Origin)
	}
	e.MustRun("down", "--team", "spawner", "--timeout", "2s")
	if proc.Alive(m.PID) {
		t.Errorf("the adopted teammate (pid %d) survived down", m.PID)
	}
}

// TestRunReportsAPrompt: `teamctl run` passes the output through, says on
// stderr when the command waits at a prompt, and exits with its exit code.
func TestRunReportsAPrompt(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	script := e.WriteFile("ask.sh", "echo working\nprintf 'Continue? [y/n] '\nread answer\necho \"got $answer\"\nexit 4\n")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // ends a hang; the waits below fail first
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, "run", "--quiet", "300ms", "--", "sh", script)
	cmd.Env = e.Environ()
	stdin, _ := cmd.StdinPipe()
	var stdout, stderr safeBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 20*time.Second, "run to report the prompt", func() (bool, string) {
		return strings.Contains(stderr.String(), "waiting for input: Continue? [y/n]"), stderr.String()
	})
	if !strings.Contains(stdout.String(), "working") {
		t.Errorf("output not passed through: %q", stdout.String())
	}
	stdin.Write([]byte("y\n"))
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 4 {
		t.Errorf("exit: %v", err)
	}
	if !strings.Contains(stdout.String(), "got y") {
		t.Errorf("answer did not reach the command: %q", stdout.String())
	}
	if strings.Count(stderr.String(), "waiting for input") != 1 {
		t.Errorf("reported more than once:\n%s", stderr.String())
	}
	_ = os.Remove(filepath.Join(e.Work, "ask.sh"))
}

// TestNotifyAndAutomaticAnswer: watchdog.notify runs the user's command with the
// stall in its environment and tells the lead (typed into its pane while it is
// idle); watchdog.answer answers only the pattern it names, once.
func TestNotifyAndAutomaticAnswer(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	notified := filepath.Join(e.Work, "notified.txt")
	e.MustRun("up", standInLayout(e, "team.yaml", fmt.Sprintf(`team: tell
watchdog:
  quiet: 300ms
  notify:
    command: [sh, -c, 'echo "$TEAMCTL_TEAM|$TEAMCTL_MEMBER|$TEAMCTL_PATTERN|$TEAMCTL_LINE" >> %s']
    lead: true
  answer:
    - pattern: yes-no-brackets
      keys: [y, Enter]
members:
  - name: asker
    env: {TEAMCTL_STANDIN_SCRIPT: "work:1s,ask"}
  - name: auto
    env: {TEAMCTL_STANDIN_SCRIPT: "work:1s,ask:Continue? [y/n]"}
`, notified)))
	testenv.Eventually(t, 20*time.Second, "both notifications", func() (bool, string) {
		b, _ := os.ReadFile(notified)
		s := string(b)
		return strings.Contains(s, "tell|asker|yes-no|Overwrite? (y/n)\n") && strings.Contains(s, "tell|auto|yes-no-brackets|Continue? [y/n]\n"), s
	})
	st := statusOf(t, e, "tell")
	waitScreen(t, e, "teamctl-tell", member(st, "auto").Pane, "answered: y")
	// Both stalls are told to the lead, one after the other, each typed once
	// it is idle: the pane's history holds them (its screen shows only the
	// last turn, and on a loaded machine a turn may come and go between two looks).
	lead := member(st, "lead").Pane
	for _, who := range []string{"asker", "auto"} {
		want := "<task-notification><member>" + who + "</member><status>stalled</status>"
		testenv.Eventually(t, 30*time.Second, who+"'s stall typed into the lead", func() (bool, string) {
			out, _ := e.Tmux("teamctl-tell", "capture-pane", "-p", "-J", "-S", "-", "-t", lead)
			return strings.Contains(out, want), out + "\nevents:\n" + fmt.Sprint(events(t, e, "tell"))
		})
	}
	if m := member(statusOf(t, e, "tell"), "asker"); m.State != "stalled" {
		t.Errorf("asker was answered without a rule: %+v", m)
	}
	evs := events(t, e, "tell")
	if countEvents(evs, "auto", "answer") != 1 || countEvents(evs, "asker", "answer") != 0 {
		t.Errorf("answers: %+v", evs)
	}
	if n := countEvents(evs, "lead", "notify"); n != 2 {
		t.Errorf("%d notify events for the lead, want 2 (one per stall): %+v", n, evs)
	}
}

// TestEventsFollow: `events --follow` prints events as they are appended.
func TestEventsFollow(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: follow\nwatchdog: {quiet: 300ms}\nmembers:\n  - name: asker\n    env: {TEAMCTL_STANDIN_SCRIPT: \"sleep:1s,ask\"}\n"))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // ends a hang; the waits below fail first
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, "events", "--follow", "--team", "follow")
	cmd.Env = e.Environ()
	var out safeBuffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	testenv.Eventually(t, 20*time.Second, "the stall to be followed", func() (bool, string) {
		return strings.Contains(out.String(), "stall") && strings.Contains(out.String(), "Overwrite? (y/n)"), out.String()
	})
	e.MustRun("answer", "asker", "n", "--team", "follow")
	testenv.Eventually(t, 20*time.Second, "the answer and the clearing to be followed", func() (bool, string) {
		return strings.Contains(out.String(), "answer") && strings.Contains(out.String(), "stall-cleared"), out.String()
	})
}

// TestRestartedTeammateGetsItsPromptAgain: a relaunched Claude Code teammate is
// a new session, so its layout prompt is left in its mailbox again.
func TestRestartedTeammateGetsItsPromptAgain(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: again2
members:
  - name: flaky
    restart: always
    prompt: Do the REDELIVERED thing.
    env: {TEAMCTL_STANDIN_SCRIPT: "sleep:500ms,exit:1"}
`))
	testenv.Eventually(t, 20*time.Second, "a restart", func() (bool, string) {
		evs := events(t, e, "again2")
		return countEvents(evs, "flaky", "restart") >= 1, fmt.Sprint(evs)
	})
	st, _ := readState(t, e, "again2")
	inbox := filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "inboxes", "flaky.json")
	b, _ := os.ReadFile(inbox)
	if n := strings.Count(string(b), "Do the REDELIVERED thing."); n < 2 {
		t.Errorf("the prompt is in the mailbox %d time(s) after a restart:\n%s", n, b)
	}
}

// TestKilledMemberIsRestarted: kill -9 of a member's process brings it back in
// a new pane in its place (never respawn-pane: see tmux.ReplacePane), with a
// restart event.
func TestKilledMemberIsRestarted(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: killed\nmembers:\n  - name: victim\n"))
	before := waitMember(t, e, "killed", "victim", 10*time.Second, func(m memberStatus) bool { return live(m.State) })
	syscall.Kill(before.PID, syscall.SIGKILL)
	after := waitMember(t, e, "killed", "victim", 20*time.Second, func(m memberStatus) bool {
		return m.Restarts == 1 && live(m.State) && m.PID != before.PID
	})
	if !proc.Alive(after.PID) {
		t.Errorf("restarted as pid %d, which is not alive", after.PID)
	}
	if out, _ := e.Tmux("teamctl-killed", "list-panes", "-a", "-F", "#{pane_id}"); strings.Count(out, "\n") != 2 || strings.Contains(out, before.Pane+"\n") {
		t.Errorf("panes after the restart (the old %s replaced, none added):\n%s", before.Pane, out)
	}
	evs := events(t, e, "killed")
	if countEvents(evs, "victim", "exit") != 1 || countEvents(evs, "victim", "restart") != 1 {
		t.Errorf("events: %+v", evs)
	}
}

// TestRestartedMemberIsStillWatched: a member the supervisor restarts is
// watched in its new pane like in its first: a question it asks after the
// restart stalls it (its watch once kept the old pane's id and went blind).
func TestRestartedMemberIsStillWatched(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	marker, goOn := filepath.Join(e.Work, "ran-once"), filepath.Join(e.Work, "go-on")
	// The first run writes while the supervisor watches (so that it has set
	// a quiet timer for that pane), then exits; the restarted run asks.
	script := fmt.Sprintf(`if [ -e %[1]q ]; then printf 'Overwrite existing config.yaml? (y/n) '; read a; echo "answered: $a"; exec sleep 1000; fi
touch %[1]q
while [ ! -e %[2]q ]; do echo generating config; sleep 0.1; done
echo done; sleep 0.1; exit 1`, marker, goOn)
	layout := standInLayout(e, "team.yaml", fmt.Sprintf(`team: again
watchdog: {quiet: 300ms}
lead: {}
members:
  - name: gen
    command: [sh, -c, %q]
    restart: always
`, script))
	e.MustRun("up", layout)
	testenv.Eventually(t, 20*time.Second, "the supervisor to follow the panes", func() (bool, string) {
		evs := events(t, e, "again")
		for _, ev := range evs {
			if ev.Kind == "supervisor" && strings.HasPrefix(ev.Detail, "started") {
				return true, ""
			}
		}
		return false, fmt.Sprint(evs)
	})
	if err := os.WriteFile(goOn, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	m := waitMember(t, e, "again", "gen", 30*time.Second, func(m memberStatus) bool { return m.Restarts == 1 && m.State == "stalled" })
	if m.Stall == nil || m.Stall.Line != "Overwrite existing config.yaml? (y/n)" {
		t.Fatalf("stall after the restart: %+v", m.Stall)
	}
	e.MustRun("answer", "gen", "y", "--team", "again")
	waitMember(t, e, "again", "gen", 20*time.Second, func(m memberStatus) bool { return m.State == "running" })
	waitScreen(t, e, "teamctl-again", m.Pane, "answered: y")
}
