package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/table"
	"github.com/teamctl/teamctl/internal/textsafe"
)

// renderInbox is a mailbox for a person: a row a message, MESSAGE on one line
// and cut to fit width (0: whole). Teammates wrote every field: each is made
// visible (textsafe), never handed to the terminal.
func renderInbox(msgs []claudecode.Message, width int) string {
	tb := table.New(table.Column{Title: "TIME"}, table.Column{Title: "FROM"}, table.Column{Title: "READ"},
		table.Column{Title: "MESSAGE", Fit: table.Cut})
	v := textsafe.Visible
	for _, m := range msgs {
		read := "no"
		if m.Read {
			read = "yes"
		}
		tb.Add(table.Text(v(messageTime(m.Timestamp))), table.Text(v(m.From)), table.Text(read),
			table.Text(v(strings.Join(strings.Fields(messageText(m)), " "))))
	}
	return tb.Render(width)
}

// messageTime is a message's timestamp in local time, or as written when it
// is not the RFC 3339 Claude Code writes.
func messageTime(ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ts
	}
	return t.Local().Format(time.DateTime)
}

// messageText is what a message says: a protocol message by its type and key
// fields (its text is JSON in a string: double-encoded in the file), else its
// summary, else its text.
func messageText(m claudecode.Message) string {
	if v, ok := claudecode.ParseProtocol(m.Text); ok {
		return protocolText(v)
	}
	if m.Summary != "" {
		return m.Summary
	}
	return m.Text
}

// protocolText is one of Claude Code's protocol messages (the values
// claudecode.ParseProtocol returns) in a line: its type, then what a person
// wants to know of it, its request id last.
func protocolText(v any) string {
	var b strings.Builder
	id := func(s string) {
		if s != "" {
			fmt.Fprintf(&b, " (request %s)", s)
		}
	}
	said := func(s string) {
		if s != "" {
			b.WriteString(": " + s)
		}
	}
	switch p := v.(type) {
	case claudecode.PermissionRequest:
		b.WriteString(claudecode.TypePermissionRequest + " " + p.ToolName)
		target := compactJSON(p.Input)
		if target == "" || target == "{}" {
			target = p.Description
		}
		said(target)
		id(p.RequestID)
	case claudecode.PermissionResponse:
		b.WriteString(claudecode.TypePermissionResponse + " " + p.Subtype)
		said(p.Error)
		id(p.RequestID)
	case claudecode.IdleNotification:
		b.WriteString(claudecode.TypeIdleNotification)
		if p.IdleReason != "" {
			b.WriteString(" (" + p.IdleReason + ")")
		}
		said(p.Result)
	case claudecode.ShutdownRequest:
		b.WriteString(claudecode.TypeShutdownRequest)
		said(p.Reason)
		id(p.RequestID)
	case claudecode.ShutdownApproved:
		b.WriteString(claudecode.TypeShutdownApproved)
		id(p.RequestID)
	case claudecode.ShutdownRejected:
		b.WriteString(claudecode.TypeShutdownRejected)
		said(p.Reason)
		id(p.RequestID)
	case claudecode.PlanApprovalResponse:
		b.WriteString(claudecode.TypePlanApprovalResponse)
		if p.Approved {
			b.WriteString(" approved")
		} else {
			b.WriteString(" rejected")
		}
		said(p.Feedback)
		id(p.RequestID)
	default:
		fmt.Fprintf(&b, "%T", v)
	}
	return b.String()
}

// compactJSON is a tool's input on one line, as it was when it is not JSON.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
