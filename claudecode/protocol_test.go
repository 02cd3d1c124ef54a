package claudecode

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseProtocol(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		want       any
	}{
		{"permission request", `{"type":"permission_request","request_id":"perm-1","agent_id":"researcher@session-12345678",
			"tool_name":"Bash","tool_use_id":"toolu_01","description":"List files","input":{"command":"ls -l"},
			"permission_suggestions":[{"type":"addRules"}]}`,
			PermissionRequest{Type: "permission_request", RequestID: "perm-1", AgentID: "researcher@session-12345678",
				ToolName: "Bash", ToolUseID: "toolu_01", Description: "List files", Input: json.RawMessage(`{"command":"ls -l"}`)}},
		{"permission success", `{"type":"permission_response","request_id":"perm-1","subtype":"success","tool_use_id":"toolu_01",
			"response":{"updated_input":{"command":"ls"},"permission_updates":[]}}`,
			PermissionResponse{Type: "permission_response", RequestID: "perm-1", Subtype: "success", ToolUseID: "toolu_01",
				Response: &PermissionResponseBody{UpdatedInput: json.RawMessage(`{"command":"ls"}`), PermissionUpdates: []json.RawMessage{}}}},
		{"permission error", `{"type":"permission_response","request_id":"perm-1","subtype":"error","error":"no"}`,
			PermissionResponse{Type: "permission_response", RequestID: "perm-1", Subtype: "error", Error: "no"}},
		{"idle", ` {"type":"idle_notification","from":"researcher","timestamp":"2026-05-01T11:03:04.005Z","idleReason":"available","result":"Done."}`,
			IdleNotification{Type: "idle_notification", From: "researcher", Timestamp: "2026-05-01T11:03:04.005Z", IdleReason: "available", Result: "Done."}},
		{"shutdown request", `{"type":"shutdown_request","requestId":"s-1","from":"team-lead","reason":"done","timestamp":"t"}`,
			ShutdownRequest{Type: "shutdown_request", RequestID: "s-1", From: "team-lead", Reason: "done", Timestamp: "t"}},
		{"shutdown approved", `{"type":"shutdown_approved","requestId":"s-1","from":"researcher","timestamp":"t","paneId":"%3","backendType":"tmux"}`,
			ShutdownApproved{Type: "shutdown_approved", RequestID: "s-1", From: "researcher", Timestamp: "t", PaneID: "%3", BackendType: "tmux"}},
		{"shutdown rejected", `{"type":"shutdown_rejected","requestId":"s-1","from":"researcher","reason":"busy","timestamp":"t"}`,
			ShutdownRejected{Type: "shutdown_rejected", RequestID: "s-1", From: "researcher", Reason: "busy", Timestamp: "t"}},
		{"plan approval", `{"type":"plan_approval_response","requestId":"p-1","approved":false,"feedback":"smaller","timestamp":"t"}`,
			PlanApprovalResponse{Type: "plan_approval_response", RequestID: "p-1", Feedback: "smaller", Timestamp: "t"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ParseProtocol(tc.text)
			if !ok {
				t.Fatalf("ParseProtocol(%s) = false", tc.text)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseProtocol = %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

func TestParseProtocolNotAMessage(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"", "find the bug in foo.go", "  ", `"permission_request"`, `["type"]`, `42`, `null`,
		`{"type":"teammate_terminated"}`, `{"no":"type"}`, `{"type":"idle_notification"`,
		`{"type":"shutdown_request","requestId":7}`, // does not fit its type
		`{"type":"permission_request"} trailing`,
	} {
		if v, ok := ParseProtocol(text); ok || v != nil {
			t.Errorf("ParseProtocol(%q) = %#v, %v; want nil, false", text, v, ok)
		}
	}
}

func TestProtocolConstructors(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 3, 4, 5_000_000, time.FixedZone("x", 3600))
	const ts = "2026-05-01T11:03:04.005Z"
	req := PermissionRequest{Type: "permission_request", RequestID: "perm-1", AgentID: "r@t", ToolName: "Bash",
		ToolUseID: "toolu_01", Description: "d", Input: json.RawMessage(`{"command":"echo <hi> & bye"}`)}
	for _, tc := range []struct {
		name string
		msg  Message
		from string
		want string
	}{
		{"approve", ApproveMessage(req, now), "team-lead",
			`{"type":"permission_response","request_id":"perm-1","subtype":"success","tool_use_id":"toolu_01",
			  "response":{"updated_input":{"command":"echo <hi> & bye"},"permission_updates":[]}}`},
		{"approve without input", ApproveMessage(PermissionRequest{RequestID: "p", ToolUseID: "u"}, now), "team-lead",
			`{"type":"permission_response","request_id":"p","subtype":"success","tool_use_id":"u",
			  "response":{"updated_input":{},"permission_updates":[]}}`},
		{"deny", DenyMessage(req, "not in prod", now), "team-lead",
			`{"type":"permission_response","request_id":"perm-1","subtype":"error","tool_use_id":"toolu_01","error":"not in prod"}`},
		{"shutdown request", ShutdownRequestMessage("s-1", "work is done", now), "team-lead",
			`{"type":"shutdown_request","requestId":"s-1","from":"team-lead","reason":"work is done","timestamp":"` + ts + `"}`},
		{"idle", IdleNotificationMessage("researcher", "All done.", now), "researcher",
			`{"type":"idle_notification","from":"researcher","timestamp":"` + ts + `","idleReason":"available","result":"All done."}`},
		{"shutdown approved", ShutdownApprovedMessage("researcher", "s-1", now), "researcher",
			`{"type":"shutdown_approved","requestId":"s-1","from":"researcher","timestamp":"` + ts + `"}`},
		{"permission request", PermissionRequestMessage("researcher", PermissionRequest{RequestID: "perm-2", AgentID: "r@t",
			ToolName: "Bash", ToolUseID: "toolu_02", Description: "ls", Input: json.RawMessage(`{"command":"ls"}`)}, now), "researcher",
			`{"type":"permission_request","request_id":"perm-2","agent_id":"r@t","tool_name":"Bash","tool_use_id":"toolu_02",
			  "description":"ls","input":{"command":"ls"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.msg
			if m.From != tc.from || m.Timestamp != ts || m.Read || m.Summary != "" || m.Color != "" {
				t.Errorf("message = %+v", m)
			}
			var got, want any
			if err := json.Unmarshal([]byte(m.Text), &got); err != nil {
				t.Fatalf("text %q: %v", m.Text, err)
			}
			if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("text = %s\nwant %s", m.Text, tc.want)
			}
			if _, ok := ParseProtocol(m.Text); !ok {
				t.Errorf("ParseProtocol(%s) = false", m.Text)
			}
		})
	}
}

// A protocol message survives the mailbox's own encoding: the text is a string
// holding JSON (double-encoded), and reads back unchanged.
func TestProtocolMessageInAMailbox(t *testing.T) {
	p := inbox(t)
	m := ShutdownRequestMessage("s-1", `say "bye" <now>`, time.Now())
	if err := AppendMessage(ctxFor(t, 10*time.Second), p, m); err != nil {
		t.Fatal(err)
	}
	msgs, err := ReadMailbox(p)
	if err != nil || len(msgs) != 1 || msgs[0] != m {
		t.Fatalf("mailbox = %+v, %v", msgs, err)
	}
	v, ok := ParseProtocol(msgs[0].Text)
	if req, _ := v.(ShutdownRequest); !ok || req.Reason != `say "bye" <now>` || req.RequestID != "s-1" {
		t.Errorf("ParseProtocol = %#v, %v", v, ok)
	}
}

// TestRequestAndIdleAreTheirWritersOwn: a permission request or idle
// notification is its writer's (the message's from) only when what it says
// inside agrees; a long name an agent wrote is cut in the error.
func TestRequestAndIdleAreTheirWritersOwn(t *testing.T) {
	t.Parallel()
	const team = "session-12345678"
	long := strings.Repeat("x", 5000)
	for _, tc := range []struct {
		from, agentID, want, err string
	}{
		{"mate", "mate@" + team, "mate", ""},
		{"mate", "lead@" + team, "", `written by "mate" but its agent_id is "lead@session-12345678"`},
		{"mate", "mate@session-ffffffff", "", "agent_id"},
		{"mate", "mate", "mate", ""}, // as Claude Code writes it
		{"mate", "pal", "", "agent_id"},
		{"mate", "mate@", "", "agent_id"},
		{"mate", "", "", "agent_id"},
		{"", "mate@" + team, "", "no member name"},
		{"../../etc", "../../etc@" + team, "", "no member name"},
		{"-rf", "-rf@" + team, "", "no member name"},
		{"mate", long, "", "…"},
	} {
		got, err := RequestFrom(Message{From: tc.from}, PermissionRequest{AgentID: tc.agentID}, team)
		if got != tc.want || (tc.err == "") != (err == nil) || err != nil && (!strings.Contains(err.Error(), tc.err) || len(err.Error()) > 400) {
			t.Errorf("RequestFrom(%q, %.20q) = %q, %v", tc.from, tc.agentID, got, err)
		}
	}
	for _, tc := range []struct{ from, names, want string }{
		{"mate", "mate", "mate"},
		{"mate", "", "mate"},
		{"mate", "lead", ""},
		{"../x", "../x", ""},
	} {
		if got, _ := IdleFrom(Message{From: tc.from}, IdleNotification{From: tc.names}); got != tc.want {
			t.Errorf("IdleFrom(%q naming %q) = %q, want %q", tc.from, tc.names, got, tc.want)
		}
	}
}
