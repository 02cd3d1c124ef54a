package standin

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/teamctl/teamctl/claudecode"
)

// A teammate speaks Claude Code's team protocol with its lead through the lead's
// inbox (team-lead.json): an idle notification after every turn, a permission
// request for each bash step, shutdown_approved when asked to end.

const mailboxTimeout = 5 * time.Second

// tellLead appends m to the lead's inbox; what went wrong shows as a line.
func (a *agent) tellLead(ctx context.Context, what string, m claudecode.Message) bool {
	wctx, cancel := context.WithTimeout(ctx, mailboxTimeout)
	defer cancel()
	if err := claudecode.AppendMessage(wctx, a.lead, m); err != nil {
		a.println(fmt.Sprintf("stand-in: %s: %v", what, err))
		return false
	}
	return true
}

// notifyIdle tells a teammate's lead that its turn is over, with the turn's last
// line as its result.
func (a *agent) notifyIdle(ctx context.Context) {
	if a.lead == "" || ctx.Err() != nil {
		return
	}
	result := ""
	if len(a.last) > 0 {
		result = a.last[len(a.last)-1]
	}
	a.tellLead(ctx, "idle notification", claudecode.IdleNotificationMessage(a.o.agentName, result, time.Now()))
}

// shutDown takes a lead's shutdown request: it approves it and ends the run, as
// Claude Code does once its model agrees, naming its pane as a teammate in tmux
// does.
func (a *agent) shutDown(ctx context.Context, req claudecode.ShutdownRequest) {
	a.unpark()
	a.println("Shutdown requested: " + req.Reason)
	now := time.Now()
	ok := claudecode.ShutdownApproved{
		Type:      claudecode.TypeShutdownApproved,
		RequestID: req.RequestID,
		From:      a.o.agentName,
		Timestamp: claudecode.Timestamp(now),
	}
	if pane := os.Getenv("TMUX_PANE"); pane != "" {
		ok.PaneID, ok.BackendType = pane, "tmux"
	}
	a.tellLead(ctx, "shutdown", claudecode.ProtocolMessage(a.o.agentName, ok, now))
	a.stop = true
}

// watchShutdown watches a teammate's inbox while its script runs and, at a
// shutdown request, takes it (marks it read), sends it on the channel it
// returns and calls stop, which ends whatever step runs: a turn, a question on
// screen, a permission it waits for, busy output. Claude Code would take the
// request at its next turn; the stand-in takes it at once, so that `teamctl
// down` need not wait for a step that never ends. The channel is closed once
// the watch is over (ctx ended). Other messages are left to checkInbox, and
// inbox errors to the lines that show them.
func (a *agent) watchShutdown(ctx context.Context, stop context.CancelFunc) <-chan claudecode.ShutdownRequest {
	got := make(chan claudecode.ShutdownRequest, 1)
	go func() {
		defer close(got)
		poll := time.NewTicker(inboxPoll)
		defer poll.Stop()
		for {
			woke := a.wake.C() // before the look, so no change after it is missed
			if req, ok := a.takeShutdownRequest(ctx); ok {
				got <- req
				stop()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-poll.C:
			case <-woke:
			}
		}
	}()
	return got
}

// takeShutdownRequest marks the first unread shutdown request in the teammate's
// inbox read and returns it; ok is false when there is none (or it is to be
// ignored, or the inbox cannot be read or written).
func (a *agent) takeShutdownRequest(ctx context.Context) (req claudecode.ShutdownRequest, ok bool) {
	if a.ignoreShutdown.Load() {
		return req, false
	}
	find := func(msgs []claudecode.Message) int {
		for i, m := range msgs {
			if m.Read {
				continue
			}
			if v, isProto := claudecode.ParseProtocol(m.Text); isProto {
				if r, isReq := v.(claudecode.ShutdownRequest); isReq {
					req = r
					return i
				}
			}
		}
		return -1
	}
	if msgs, err := claudecode.ReadMailbox(a.inbox); err != nil || find(msgs) < 0 {
		return req, false
	}
	uctx, cancel := context.WithTimeout(ctx, mailboxTimeout)
	defer cancel()
	err := claudecode.UpdateMailbox(uctx, a.inbox, func(msgs []claudecode.Message) ([]claudecode.Message, error) {
		if i := find(msgs); i >= 0 {
			msgs[i].Read, ok = true, true
		}
		return msgs, nil
	})
	return req, ok && err == nil
}

// bash plays a teammate's Bash tool call that needs permission: it asks the lead
// through its inbox, waits for the answer in its own inbox (leaving other messages
// there for later) and runs command with /bin/sh -c when allowed.
func (a *agent) bash(ctx context.Context, command string) {
	if a.lead == "" {
		a.println("stand-in: bash: only a teammate (--agent-name, --team-name) asks its lead for permission")
		return
	}
	agentID := a.o.agentID
	if agentID == "" {
		agentID = a.o.agentName + "@" + a.o.teamName
	}
	var input bytes.Buffer
	enc := json.NewEncoder(&input)
	enc.SetEscapeHTML(false) // keep "<" and ">" readable, as Claude Code does
	enc.Encode(map[string]string{"command": command})
	req := claudecode.PermissionRequest{
		RequestID:   "perm-" + randomID(),
		AgentID:     agentID,
		ToolName:    "Bash",
		ToolUseID:   "toolu_" + randomID(),
		Description: command,
		Input:       bytes.TrimSpace(input.Bytes()),
	}
	if !a.tellLead(ctx, "bash: the permission request could not be delivered to the team lead",
		claudecode.PermissionRequestMessage(a.o.agentName, req, time.Now())) {
		return
	}
	a.println(fmt.Sprintf("Permission request sent to team %q leader", a.o.teamName))
	resp, ok := a.awaitPermission(ctx, req.RequestID)
	if !ok {
		return
	}
	if resp.Subtype == claudecode.PermissionSuccess {
		cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
		cmd.Stdout, cmd.Stderr = a.out, a.out
		err := cmd.Run()
		a.last = []string{"Ran: " + command}
		a.println(a.last[0])
		if err != nil {
			a.println("stand-in: bash: " + err.Error())
		}
	} else {
		a.last = []string{"Denied: " + resp.Error}
		a.println(a.last[0])
	}
	a.notifyIdle(ctx)
}

// awaitPermission polls the teammate's inbox for the permission_response to
// requestID, marks it read and returns it; other messages stay unread. ok is false
// when ctx ended first.
func (a *agent) awaitPermission(ctx context.Context, requestID string) (resp claudecode.PermissionResponse, ok bool) {
	find := func(msgs []claudecode.Message) int {
		for i, m := range msgs {
			if m.Read {
				continue
			}
			if v, isProto := claudecode.ParseProtocol(m.Text); isProto {
				if r, isResp := v.(claudecode.PermissionResponse); isResp && r.RequestID == requestID {
					resp = r
					return i
				}
			}
		}
		return -1
	}
	poll := time.NewTicker(inboxPoll)
	defer poll.Stop()
	for {
		woke := a.wake.C() // before the look, so no change after it is missed
		msgs, err := claudecode.ReadMailbox(a.inbox)
		if err == nil && find(msgs) >= 0 {
			found := false
			uctx, cancel := context.WithTimeout(ctx, mailboxTimeout)
			err = claudecode.UpdateMailbox(uctx, a.inbox, func(msgs []claudecode.Message) ([]claudecode.Message, error) {
				if i := find(msgs); i >= 0 {
					msgs[i].Read, found = true, true
				}
				return msgs, nil
			})
			cancel()
			if err == nil && found {
				a.errMsg = ""
				return resp, true
			}
		}
		if err != nil && err.Error() != a.errMsg {
			a.errMsg = err.Error()
			a.println("stand-in: inbox: " + a.errMsg)
		}
		select {
		case <-ctx.Done():
			return resp, false
		case <-poll.C:
		case <-woke:
		}
	}
}

func randomID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
