package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/testenv"
)

type protoStatus struct {
	Members []struct {
		Name    string `json:"name"`
		Pane    string `json:"pane"`
		State   string `json:"state"`
		Result  string `json:"result"`
		Request *struct {
			ID    string `json:"id"`
			Tool  string `json:"tool"`
			Input string `json:"input"`
		} `json:"request"`
	} `json:"members"`
}

// TestPermissionRequestApprovedAndDenied: a teammate's permission request (in
// the lead's mailbox, as Claude Code writes it) shows as waiting-approval with
// the tool and its input; approve makes the command run, deny keeps it from
// running; each answer is an event and clears the state.
func TestPermissionRequestApprovedAndDenied(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	yes := filepath.Join(e.Work, "approved.txt")
	no := filepath.Join(e.Work, "denied.txt")
	e.MustRun("up", standInLayout(e, "team.yaml", fmt.Sprintf(`team: perms
members:
  - name: granted
    env: {TEAMCTL_STANDIN_SCRIPT: "bash:touch %s"}
  - name: refused
    env: {TEAMCTL_STANDIN_SCRIPT: "bash:touch %s"}
`, yes, no)))
	status := func() protoStatus {
		var s protoStatus
		json.Unmarshal([]byte(e.MustRun("status", "--json", "--team", "perms").Stdout), &s)
		return s
	}
	for _, name := range []string{"granted", "refused"} {
		testenv.Eventually(t, 20*time.Second, name+" waiting for approval", func() (bool, string) {
			for _, m := range status().Members {
				if m.Name == name {
					return m.State == "waiting-approval" && m.Request != nil && m.Request.Tool == "Bash", fmt.Sprintf("%+v", m)
				}
			}
			return false, "no member"
		})
	}
	if _, err := os.Stat(yes); err == nil {
		t.Fatal("the command ran before it was approved")
	}
	e.MustRun("approve", "granted", "--team", "perms")
	e.MustRun("deny", "refused", "--reason", "not now", "--team", "perms")
	testenv.Eventually(t, 20*time.Second, "the approved command to run", func() (bool, string) {
		_, err := os.Stat(yes)
		return err == nil, fmt.Sprint(err)
	})
	st := status()
	for _, m := range st.Members {
		if m.Name == "refused" {
			waitScreen(t, e, "teamctl-perms", m.Pane, "Denied: not now")
		}
	}
	if _, err := os.Stat(no); err == nil {
		t.Error("the denied command ran")
	}
	testenv.Eventually(t, 20*time.Second, "both to leave waiting-approval", func() (bool, string) {
		s := status()
		for _, m := range s.Members {
			if m.State == "waiting-approval" {
				return false, fmt.Sprintf("%+v", s.Members)
			}
		}
		return true, ""
	})
	evs := events(t, e, "perms")
	for _, name := range []string{"granted", "refused"} {
		if countEvents(evs, name, "permission-request") != 1 || countEvents(evs, name, "permission-answer") != 1 {
			t.Errorf("%s events: %+v", name, evs)
		}
	}
	if r := e.Run("approve", "granted", "--team", "perms"); r.Code == 0 {
		t.Errorf("a second approve with nothing waiting succeeded: %s", r.Stdout)
	}
}

// TestSendReachesTeammateAndLead: send to a teammate lands in its mailbox and
// starts a turn there; send to the lead is typed into its pane once it is idle;
// inbox lists a mailbox.
func TestSendReachesTeammateAndLead(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: sender\nwatchdog: {quiet: 300ms}\nmembers:\n  - name: mate\n"))
	st := statusOf(t, e, "sender")
	r := e.MustRun("send", "mate", "Look at SEND-MARKER-1 please", "--team", "sender")
	if !strings.Contains(r.Stdout, "mailbox") {
		t.Errorf("send to a teammate: %s", r.Stdout)
	}
	waitScreen(t, e, "teamctl-sender", member(st, "mate").Pane, "SEND-MARKER-1")
	waitMember(t, e, "sender", "lead", 20*time.Second, func(m memberStatus) bool { return m.State == "idle" })
	e.MustRun("send", "lead", "Plan the next step SEND-MARKER-2", "--team", "sender")
	waitScreen(t, e, "teamctl-sender", member(st, "lead").Pane, "❯ Plan the next step SEND-MARKER-2")
	var msgs []struct{ From, Text string }
	if err := json.Unmarshal([]byte(e.MustRun("inbox", "mate", "--json", "--team", "sender").Stdout), &msgs); err != nil {
		t.Fatal(err)
	}
	if len(msgs) == 0 || msgs[len(msgs)-1].From != "team-lead" || msgs[len(msgs)-1].Text != "Look at SEND-MARKER-1 please" {
		t.Errorf("mate's inbox: %+v", msgs)
	}
	testenv.Eventually(t, 20*time.Second, "mate's idle notification in the lead's inbox", func() (bool, string) {
		out := e.MustRun("inbox", "lead", "--team", "sender").Stdout
		return strings.Contains(out, "idle_notification") && strings.Contains(out, "mate"), out
	})
	if r := e.Run("send", "nobody", "hi", "--team", "sender"); r.Code == 0 {
		t.Error("send to an unknown member succeeded")
	}
}

// TestInboxIsForPeople: inbox shows a mailbox's messages in words — local
// time, sender, read or not, and a protocol message by its type and key
// fields, not the JSON it travels as; --json gives the messages as they are.
func TestInboxIsForPeople(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: letters\n"))
	st, _ := readState(t, e, "letters")
	inbox := filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "inboxes", "team-lead.json")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	at := time.Now()
	req := claudecode.PermissionRequest{RequestID: "perm-7", AgentID: "ghost@" + st.ClaudeTeam, ToolName: "Bash", Input: json.RawMessage(`{"command":"make test"}`)}
	for _, m := range []claudecode.Message{
		{From: "ghost", Text: "the whole report", Summary: "Report on the login bug", Timestamp: claudecode.Timestamp(at)},
		claudecode.PermissionRequestMessage("ghost", req, at),
		claudecode.ShutdownApprovedMessage("ghost", "shut-3", at),
	} {
		if err := claudecode.AppendMessage(ctx, inbox, m); err != nil {
			t.Fatal(err)
		}
	}
	out := e.MustRun("inbox", "lead", "--team", "letters").Stdout
	when := at.Truncate(time.Second).Local().Format(time.DateTime)
	for _, want := range []string{
		"TIME ", when + "  ghost  no    Report on the login bug",
		`permission_request Bash: {"command":"make test"} (request perm-7)`,
		"shutdown_approved (request shut-3)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("inbox does not show %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `\"`) || strings.Contains(out, `"type"`) {
		t.Errorf("inbox shows the protocol's JSON:\n%s", out)
	}
	var msgs []claudecode.Message
	if err := json.Unmarshal([]byte(e.MustRun("inbox", "lead", "--json", "--team", "letters").Stdout), &msgs); err != nil || len(msgs) != 3 || !strings.Contains(msgs[1].Text, `"type":"permission_request"`) {
		t.Errorf("inbox --json: %v %+v", err, msgs)
	}
}

// TestPermissionRulesAnswerByThemselves: a layout's rules answer matching
// requests (deny winning, member rules with the team's), name the rule in the
// event, and leave unmatched requests to a person.
func TestPermissionRulesAnswerByThemselves(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	allowed := filepath.Join(e.Work, "allowed.txt")
	e.MustRun("up", standInLayout(e, "team.yaml", fmt.Sprintf(`team: rules
permissions:
  allow: ["Bash(touch:*)"]
  deny: ["Bash(rm:*)"]
members:
  - name: toucher
    env: {TEAMCTL_STANDIN_SCRIPT: "bash:touch %s"}
  - name: remover
    env: {TEAMCTL_STANDIN_SCRIPT: "bash:rm -f %s"}
  - name: asker
    permissions: {deny: ["Bash(echo:*)"]}
    env: {TEAMCTL_STANDIN_SCRIPT: "bash:ls"}
`, allowed, allowed)))
	testenv.Eventually(t, 20*time.Second, "the allowed command to run", func() (bool, string) {
		_, err := os.Stat(allowed)
		return err == nil, fmt.Sprint(err)
	})
	st := statusOf(t, e, "rules")
	waitScreen(t, e, "teamctl-rules", member(st, "remover").Pane, "Denied: denied by rule Bash(rm:*)")
	waitMember(t, e, "rules", "asker", 20*time.Second, func(m memberStatus) bool { return m.State == "waiting-approval" })
	evs := events(t, e, "rules")
	for name, want := range map[string]string{"toucher": "automatic: allowed by rule Bash(touch:*)", "remover": "automatic: denied by rule Bash(rm:*)"} {
		found := false
		for _, ev := range evs {
			if ev.Member == name && ev.Kind == "permission-answer" && ev.Detail == want {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no permission-answer %q in %+v", name, want, evs)
		}
	}
	if countEvents(evs, "asker", "permission-answer") != 0 {
		t.Errorf("a request no rule matches was answered: %+v", evs)
	}
}

// TestTeamConfigIsKeptWhileUp: when the lead's config.json disappears while the
// team is up, the supervisor writes a minimal one again and says so.
func TestTeamConfigIsKeptWhileUp(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: keeper\nmembers:\n  - name: mate\n"))
	st, _ := readState(t, e, "keeper")
	cfg := filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "config.json")
	// Let the supervisor see the lead's config first (its member list event-free).
	testenv.Eventually(t, 10*time.Second, "the supervisor running", func() (bool, string) {
		return statusOf(t, e, "keeper").Supervisor.Running, ""
	})
	waitMember(t, e, "keeper", "mate", 20*time.Second, func(m memberStatus) bool { return m.State == "idle" })
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "config.json written again", func() (bool, string) {
		b, err := os.ReadFile(cfg)
		return err == nil && strings.Contains(string(b), st.LeadSessionID), fmt.Sprint(err)
	})
	if n := countEvents(events(t, e, "keeper"), "", "config"); n != 1 {
		t.Errorf("%d config events", n)
	}
}

// TestCorruptLeadInboxIsReportedAndKept: a lead inbox that does not parse is
// never overwritten; it is reported once, and the supervisor carries on.
func TestCorruptLeadInboxIsReportedAndKept(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: corrupt\n"))
	st, _ := readState(t, e, "corrupt")
	inbox := filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "inboxes", "team-lead.json")
	testenv.Eventually(t, 10*time.Second, "the supervisor running", func() (bool, string) {
		return statusOf(t, e, "corrupt").Supervisor.Running, ""
	})
	garbage := []byte(`[{"from": "x", "text": `)
	os.MkdirAll(filepath.Dir(inbox), 0o700)
	if err := os.WriteFile(inbox, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "a mailbox-corrupt event", func() (bool, string) {
		evs := events(t, e, "corrupt")
		return countEvents(evs, "team-lead", "mailbox-corrupt") == 1, fmt.Sprint(evs)
	})
	if b, _ := os.ReadFile(inbox); string(b) != string(garbage) {
		t.Errorf("the corrupt mailbox was changed: %q", b)
	}
	if !statusOf(t, e, "corrupt").Supervisor.Running {
		t.Error("the supervisor stopped over a corrupt mailbox")
	}
}

// TestTasksAreListedAndFollowed: Claude Code's task files show in `tasks`, and
// a new task or a status change is a "task" event.
func TestTasksAreListedAndFollowed(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: tasker\nmembers:\n  - name: mate\n"))
	st, _ := readState(t, e, "tasker")
	dir := filepath.Join(e.ClaudeDir, "tasks", st.ClaudeTeam)
	// The supervisor reports tasks that change after its first look, which it
	// takes before its loop judges any pane: wait for such a judgement.
	testenv.Eventually(t, 10*time.Second, "the supervisor's first look", func() (bool, string) {
		return countEvents(events(t, e, "tasker"), "mate", "idle") >= 1, ""
	})
	write := func(status string) {
		b, _ := json.Marshal(map[string]any{"id": "1", "subject": "Fix the login bug", "status": status, "owner": "mate"})
		if err := os.WriteFile(filepath.Join(dir, "1.json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("pending")
	testenv.Eventually(t, 20*time.Second, "a task event", func() (bool, string) {
		evs := events(t, e, "tasker")
		return countEvents(evs, "mate", "task") >= 1, fmt.Sprint(evs)
	})
	write("completed")
	testenv.Eventually(t, 20*time.Second, "the status change as an event", func() (bool, string) {
		for _, ev := range events(t, e, "tasker") {
			if ev.Kind == "task" && strings.Contains(ev.Detail, "task 1 completed") {
				return true, ""
			}
		}
		return false, fmt.Sprint(events(t, e, "tasker"))
	})
	out := e.MustRun("tasks", "--team", "tasker").Stdout
	if !strings.Contains(out, "completed") || !strings.Contains(out, "Fix the login bug") || !strings.Contains(out, "mate") {
		t.Errorf("tasks:\n%s", out)
	}
}

// TestHookRecordsAnEvent: `teamctl hook`, as Claude Code calls it in the
// member's pane (TMUX_PANE), appends an event for the member and exits 0 at
// once; a Stop hook makes the member idle.
func TestHookRecordsAnEvent(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: hooked\nmembers:\n  - name: mate\n    env: {TEAMCTL_STANDIN_SCRIPT: busy}\n"))
	matePane := member(statusOf(t, e, "hooked"), "mate").Pane
	// The supervisor follows the events written after its start.
	testenv.Eventually(t, 10*time.Second, "the supervisor's start", func() (bool, string) {
		return countEvents(events(t, e, "hooked"), "", "supervisor") == 1, ""
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, "hook")
	cmd.Env = append(e.Environ(), "TEAMCTL_TEAM=hooked", "TEAMCTL_MEMBER=mate", "TMUX_PANE="+matePane)
	cmd.Stdin = strings.NewReader(`{"session_id":"s","cwd":"/x","hook_event_name":"Stop"}`)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hook: %v %s", err, out)
	}
	testenv.Eventually(t, 10*time.Second, "the hook event and the idle it means", func() (bool, string) {
		evs := events(t, e, "hooked")
		return countEvents(evs, "mate", "hook") == 1 && countEvents(evs, "mate", "idle") >= 1, fmt.Sprint(evs)
	})
	// Without a team it does nothing, and still exits 0.
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute) // a hang guard of its own
	defer cancel()
	cmd = exec.CommandContext(ctx, e.Bin, "hook")
	cmd.Env = e.Environ()
	cmd.Stdin = strings.NewReader(`not json`)
	if err := cmd.Run(); err != nil {
		t.Errorf("hook without a team: %v", err)
	}
}
