package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/team"
)

// TestTasksTable: no tasks is a sentence, not a heading alone; tasks line up
// by their width on screen.
func TestTasksTable(t *testing.T) {
	if got := renderTasks(nil, 0); got != "no tasks\n" {
		t.Errorf("tasks: %q", got)
	}
	got := renderTasks([]claudecode.Task{{ID: "1", Status: "pending", Owner: "mate", Subject: "Fix the 登录 bug"}}, 0)
	if !strings.HasPrefix(got, "ID  STATUS   OWNER  SUBJECT\n1   pending  mate   Fix the 登录 bug\n") {
		t.Errorf("tasks:\n%s", got)
	}
}

// TestInboxRendersMessagesForPeople: a mailbox shows when (local time), from
// whom, read or not, and what each message says — its summary, else its text
// on one line; Claude Code's protocol messages by type and key fields, never
// as the JSON they travel as; every field made visible.
func TestInboxRendersMessagesForPeople(t *testing.T) {
	at := time.Date(2026, 3, 4, 9, 41, 7, 0, time.UTC)
	req := claudecode.PermissionRequest{Type: claudecode.TypePermissionRequest, RequestID: "perm-1", AgentID: "mate@t", ToolName: "Bash",
		Input: json.RawMessage(`{ "command": "go test ./..." }`)}
	deny := claudecode.DenyMessage(req, "not now", at)
	msgs := []claudecode.Message{
		{From: "mate", Text: "Found it:\n\tthe token\x1b[2J expires", Timestamp: claudecode.Timestamp(at), Read: true},
		{From: "mate", Text: "a long report", Summary: "Report on 認証", Timestamp: claudecode.Timestamp(at)},
		claudecode.PermissionRequestMessage("mate", req, at),
		deny,
		claudecode.IdleNotificationMessage("mate", "✻ Worked for 5s", at),
		claudecode.ShutdownRequestMessage("shut-1", "the work is done", at),
		claudecode.ShutdownApprovedMessage("mate", "shut-1", at),
		claudecode.ProtocolMessage("mate", claudecode.ShutdownRejected{Type: claudecode.TypeShutdownRejected, RequestID: "shut-2", Reason: "still testing"}, at),
		claudecode.ProtocolMessage("team-lead", claudecode.PlanApprovalResponse{Type: claudecode.TypePlanApprovalResponse, RequestID: "plan-1", Feedback: "smaller steps"}, at),
		{From: "mate", Text: `{"type":"something_new","x":1}`, Timestamp: "yesterday"},
	}
	when := at.Local().Format(time.DateTime)
	got := renderInbox(msgs, 0)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	want := []string{
		`Found it: the token\x1b[2J expires`,
		`Report on 認証`,
		`permission_request Bash: {"command":"go test ./..."} (request perm-1)`,
		`permission_response error: not now (request perm-1)`,
		`idle_notification (available): ✻ Worked for 5s`,
		`shutdown_request: the work is done (request shut-1)`,
		`shutdown_approved (request shut-1)`,
		`shutdown_rejected: still testing (request shut-2)`,
		`plan_approval_response rejected: smaller steps (request plan-1)`,
		`{"type":"something_new","x":1}`,
	}
	if len(lines) != len(want)+1 || !strings.HasPrefix(lines[0], "TIME ") {
		t.Fatalf("%d lines for %d messages:\n%s", len(lines), len(msgs), got)
	}
	at0 := strings.Index(lines[0], "MESSAGE")
	for i, w := range want {
		ln := lines[i+1]
		if msg := ansi.Cut(ln, at0, ansi.StringWidth(ln)); msg != w {
			t.Errorf("message %d reads %q, want %q", i, msg, w)
		}
		if i < len(want)-1 && !strings.HasPrefix(ln, when+"  ") {
			t.Errorf("message %d: no local time %s: %q", i, when, ln)
		}
	}
	if !strings.Contains(lines[1], "  mate       yes  ") || !strings.Contains(lines[2], "  mate       no   ") {
		t.Errorf("FROM and READ:\n%s", got)
	}
	if strings.Contains(got, `\"`) || strings.ContainsAny(got, "\x1b\t") {
		t.Errorf("double-encoded JSON or a raw control character:\n%q", got)
	}
	// On a terminal, MESSAGE is cut to fit.
	for _, ln := range strings.Split(strings.TrimSuffix(renderInbox(msgs, 60), "\n"), "\n") {
		if ansi.StringWidth(ln) > 60 {
			t.Errorf("wider than 60: %q", ln)
		}
	}
}

// TestTeamsTableShortensTheLayout: at a terminal's width the LAYOUT column
// gives way as status's CWD does.
func TestTeamsTableShortensTheLayout(t *testing.T) {
	t.Setenv("HOME", "/home/ann")
	long := "/home/ann/src/a-rather-long-folder-name/and-another-long-one/services/team.yaml"
	ts := []team.TeamSummary{{Team: "auth-fix", Up: true, Members: 3, Running: 3, Socket: "teamctl-auth-fix", Layout: long,
		Supervisor: team.SupervisorStatus{Running: true, PID: 4242}}}
	if got := renderTeams(ts, time.Now(), 0); !strings.Contains(got, long) {
		t.Errorf("no width: the layout whole:\n%s", got)
	}
	got := renderTeams(ts, time.Now(), 80)
	if !strings.Contains(got, "~/…/team.yaml") {
		t.Errorf("at 80 columns:\n%s", got)
	}
	for _, ln := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if ansi.StringWidth(ln) > 80 {
			t.Errorf("wider than 80: %q", ln)
		}
	}
}

// TestTypedKeys: keys read as a person typed them, quoted only where a shell
// would need it, with nothing a terminal would act on.
func TestTypedKeys(t *testing.T) {
	for _, c := range []struct {
		keys []string
		want string
	}{
		{[]string{"y", "Enter"}, "y Enter"},
		{[]string{"Down", "Down", "Enter"}, "Down Down Enter"},
		{[]string{"C-c", "M-x", "F1", "é"}, "C-c M-x F1 é"},
		{[]string{"hello world", "Enter"}, "'hello world' Enter"},
		{[]string{"it's", ""}, `'it'\''s' ''`},
		{[]string{"\x1b[2J"}, `'\x1b[2J'`},
	} {
		if got := typedKeys(c.keys); got != c.want {
			t.Errorf("typedKeys(%q) = %q, want %q", c.keys, got, c.want)
		}
	}
}
