package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// Protocol messages travel as the Text of a mailbox Message: a JSON object encoded
// as a string (so double-encoded in the mailbox file). Their shapes and field names
// (snake_case for permissions, camelCase elsewhere) are as Claude Code 2.1.328 was
// observed to write and accept them; see the notes' "Teammates" section.

// The "type" of each protocol message.
const (
	TypePermissionRequest    = "permission_request"
	TypePermissionResponse   = "permission_response"
	TypeIdleNotification     = "idle_notification"
	TypeShutdownRequest      = "shutdown_request"
	TypeShutdownApproved     = "shutdown_approved"
	TypeShutdownRejected     = "shutdown_rejected"
	TypePlanApprovalResponse = "plan_approval_response"
)

// PermissionRequest is what a teammate writes to the lead's inbox when a tool call
// needs permission; it then waits for a PermissionResponse with the same RequestID.
// Fields Claude Code adds beyond these are not kept.
type PermissionRequest struct {
	Type        string          `json:"type"`
	RequestID   string          `json:"request_id"`
	AgentID     string          `json:"agent_id"`
	ToolName    string          `json:"tool_name"`
	ToolUseID   string          `json:"tool_use_id"`
	Description string          `json:"description"`
	Input       json.RawMessage `json:"input"`
}

// PermissionResponse answers a PermissionRequest: Subtype "success" with Response
// lets the tool run (with Response.UpdatedInput), "error" with Error denies it.
type PermissionResponse struct {
	Type      string                  `json:"type"`
	RequestID string                  `json:"request_id"`
	Subtype   string                  `json:"subtype"`
	ToolUseID string                  `json:"tool_use_id,omitempty"`
	Response  *PermissionResponseBody `json:"response,omitempty"`
	Error     string                  `json:"error,omitempty"`
}

// PermissionResponseBody is a successful PermissionResponse's "response".
type PermissionResponseBody struct {
	UpdatedInput      json.RawMessage   `json:"updated_input"`
	PermissionUpdates []json.RawMessage `json:"permission_updates"`
}

// The subtypes of a PermissionResponse.
const (
	PermissionSuccess = "success"
	PermissionError   = "error"
)

// IdleNotification is what a teammate appends to the lead's inbox after every turn;
// Result is its last answer.
type IdleNotification struct {
	Type       string `json:"type"`
	From       string `json:"from"`
	Timestamp  string `json:"timestamp"`
	IdleReason string `json:"idleReason"`
	Result     string `json:"result"`
}

// IdleAvailable is the IdleReason of a teammate that finished its turn.
const IdleAvailable = "available"

// ShutdownRequest asks a teammate to end. Claude Code silently drops one without a
// Timestamp.
type ShutdownRequest struct {
	Type      string `json:"type"`
	RequestID string `json:"requestId"`
	From      string `json:"from"`
	Reason    string `json:"reason"`
	Timestamp string `json:"timestamp"`
}

// ShutdownApproved is what a teammate writes to the lead before it ends.
type ShutdownApproved struct {
	Type        string `json:"type"`
	RequestID   string `json:"requestId"`
	From        string `json:"from"`
	Timestamp   string `json:"timestamp"`
	PaneID      string `json:"paneId,omitempty"`
	BackendType string `json:"backendType,omitempty"`
}

// ShutdownRejected is what a teammate writes to the lead when it refuses to end.
type ShutdownRejected struct {
	Type        string `json:"type"`
	RequestID   string `json:"requestId"`
	From        string `json:"from"`
	Reason      string `json:"reason"`
	Timestamp   string `json:"timestamp"`
	PaneID      string `json:"paneId,omitempty"`
	BackendType string `json:"backendType,omitempty"`
}

// PlanApprovalResponse answers a teammate's plan (teammates started with
// --plan-mode-required).
type PlanApprovalResponse struct {
	Type      string `json:"type"`
	RequestID string `json:"requestId"`
	Approved  bool   `json:"approved"`
	Feedback  string `json:"feedback,omitempty"`
	Timestamp string `json:"timestamp"`
}

// ParseProtocol decodes a mailbox message's text as a protocol message. It returns
// the typed value (PermissionRequest, PermissionResponse, IdleNotification,
// ShutdownRequest, ShutdownApproved, ShutdownRejected or PlanApprovalResponse, not
// a pointer) and true when text is a JSON object with a known "type"; false for
// plain text, other JSON, unknown types and objects that do not fit their type.
func ParseProtocol(text string) (any, bool) {
	data := bytes.TrimSpace([]byte(text))
	if len(data) == 0 || data[0] != '{' {
		return nil, false
	}
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(data, &head) != nil {
		return nil, false
	}
	switch head.Type {
	case TypePermissionRequest:
		return decodeAs[PermissionRequest](data)
	case TypePermissionResponse:
		return decodeAs[PermissionResponse](data)
	case TypeIdleNotification:
		return decodeAs[IdleNotification](data)
	case TypeShutdownRequest:
		return decodeAs[ShutdownRequest](data)
	case TypeShutdownApproved:
		return decodeAs[ShutdownApproved](data)
	case TypeShutdownRejected:
		return decodeAs[ShutdownRejected](data)
	case TypePlanApprovalResponse:
		return decodeAs[PlanApprovalResponse](data)
	}
	return nil, false
}

func decodeAs[T any](data []byte) (any, bool) {
	var v T
	if json.Unmarshal(data, &v) != nil {
		return nil, false
	}
	return v, true
}

// ProtocolMessage is a mailbox message from from whose text is v encoded as JSON.
// v must be one of the protocol types (with Type set) or another value that
// encodes without error.
func ProtocolMessage(from string, v any, now time.Time) Message {
	b, err := marshalNoEscape(v)
	if err != nil {
		panic("claudecode: protocol message does not encode: " + err.Error())
	}
	return Message{From: from, Text: string(b), Timestamp: Timestamp(now)}
}

// ApproveMessage is the lead's answer that lets req's tool call run with its input
// unchanged.
func ApproveMessage(req PermissionRequest, now time.Time) Message {
	input := req.Input
	if !json.Valid(input) {
		input = json.RawMessage(`{}`)
	}
	return ProtocolMessage(LeadMailboxName, PermissionResponse{
		Type:      TypePermissionResponse,
		RequestID: req.RequestID,
		Subtype:   PermissionSuccess,
		ToolUseID: req.ToolUseID,
		Response:  &PermissionResponseBody{UpdatedInput: input, PermissionUpdates: []json.RawMessage{}},
	}, now)
}

// DenyMessage is the lead's answer that denies req's tool call, giving reason.
func DenyMessage(req PermissionRequest, reason string, now time.Time) Message {
	return ProtocolMessage(LeadMailboxName, PermissionResponse{
		Type:      TypePermissionResponse,
		RequestID: req.RequestID,
		Subtype:   PermissionError,
		ToolUseID: req.ToolUseID,
		Error:     reason,
	}, now)
}

// ShutdownRequestMessage is the lead's request that a teammate end, with the
// timestamp Claude Code needs to take it.
func ShutdownRequestMessage(requestID, reason string, now time.Time) Message {
	return ProtocolMessage(LeadMailboxName, ShutdownRequest{
		Type:      TypeShutdownRequest,
		RequestID: requestID,
		From:      LeadMailboxName,
		Reason:    reason,
		Timestamp: Timestamp(now),
	}, now)
}

// IdleNotificationMessage is what teammate from appends to the lead's inbox after
// a turn whose answer was result.
func IdleNotificationMessage(from, result string, now time.Time) Message {
	return ProtocolMessage(from, IdleNotification{
		Type:       TypeIdleNotification,
		From:       from,
		Timestamp:  Timestamp(now),
		IdleReason: IdleAvailable,
		Result:     result,
	}, now)
}

// ShutdownApprovedMessage is what teammate from writes to the lead before it ends
// on the shutdown request requestID.
func ShutdownApprovedMessage(from, requestID string, now time.Time) Message {
	return ProtocolMessage(from, ShutdownApproved{
		Type:      TypeShutdownApproved,
		RequestID: requestID,
		From:      from,
		Timestamp: Timestamp(now),
	}, now)
}

// PermissionRequestMessage is what a teammate (from) writes to the lead's inbox to
// ask for req; Type is filled in.
func PermissionRequestMessage(from string, req PermissionRequest, now time.Time) Message {
	req.Type = TypePermissionRequest
	if !json.Valid(req.Input) {
		req.Input = json.RawMessage(`{}`)
	}
	return ProtocolMessage(from, req, now)
}

// AnswerRequest writes the lead's answer to a teammate's permission request
// into the teammate's mailbox, as Claude Code's own lead does: a
// permission_response with subtype success (the tool runs) or, when deny is
// not "", error with deny as the reason (the teammate skips the tool).
func AnswerRequest(ctx context.Context, configDir, team, member string, req PermissionRequest, deny string) error {
	inbox, err := InboxPath(configDir, team, member)
	if err != nil {
		return err
	}
	msg := ApproveMessage(req, time.Now())
	if deny != "" {
		msg = DenyMessage(req, deny, time.Now())
	}
	mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := AppendMessage(mctx, inbox, msg); err != nil {
		return fmt.Errorf("answer %s: %w", member, err)
	}
	return nil
}

// DeliverPrompt leaves text in a teammate's mailbox as a plain message from
// team-lead, which Claude Code delivers as a turn (its first, when the
// teammate has not started yet): how Claude Code's own lead hands a teammate
// its prompt.
func DeliverPrompt(ctx context.Context, configDir, team, member, text string) error {
	inbox, err := InboxPath(configDir, team, member)
	if err != nil {
		return err
	}
	mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := AppendMessage(mctx, inbox, PromptMessage(text, time.Now())); err != nil {
		return fmt.Errorf("give %s its prompt: %w", member, err)
	}
	return nil
}

// Who wrote a message to the lead's inbox: every teammate writes into that one
// file, each message with "from" set by Claude Code to the writer's own name.
// What a message says about its writer inside its text (a permission
// request's agent_id, an idle notification's from) is taken only when it
// agrees: a message naming someone else is nobody's.

// RequestFrom is the name of the teammate whose permission request req came
// in msg, in the lead's inbox of Claude Code team team: msg.From, when it is a
// ValidMemberName and req.AgentID names it — as Claude Code writes it, the
// name alone (seen, 2.1.328 and 2.1.332, though the teammate runs with
// --agent-id NAME@TEAM), or NAME@TEAM of this team. Otherwise it says why the
// request is nobody's.
func RequestFrom(msg Message, req PermissionRequest, team string) (string, error) {
	if !ValidMemberName(msg.From) {
		return "", fmt.Errorf("its sender %q is no member name", quoted(msg.From))
	}
	if req.AgentID != msg.From && req.AgentID != msg.From+"@"+team {
		return "", fmt.Errorf("it was written by %q but its agent_id is %q, not %q or %q", msg.From, quoted(req.AgentID), msg.From, msg.From+"@"+team)
	}
	return msg.From, nil
}

// IdleFrom is the name of the teammate whose idle notification n came in
// msg: msg.From, when it is a ValidMemberName and n names no one else.
func IdleFrom(msg Message, n IdleNotification) (string, error) {
	if !ValidMemberName(msg.From) {
		return "", fmt.Errorf("its sender %q is no member name", quoted(msg.From))
	}
	if n.From != "" && n.From != msg.From {
		return "", fmt.Errorf("it was written by %q but names %q", msg.From, quoted(n.From))
	}
	return msg.From, nil
}

// quoted is a name an agent wrote, cut short for an error (it may be any size).
func quoted(s string) string {
	const most = 80
	if len(s) <= most {
		return s
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
