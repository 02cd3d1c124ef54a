package team

import (
	"context"
	"fmt"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/relaunch"
	"github.com/teamctl/teamctl/state"
)

// answerPermission writes the lead's answer to a teammate's pending permission request
// into the teammate's mailbox, and records it. requestID "" means the
// member's pending request.
func answerPermission(ctx context.Context, team, member, requestID string, approve bool, reason string, by actor) (string, error) {
	st, err := loadRunning(team)
	if err != nil {
		return "", err
	}
	if _, ok := st.Member(member); !ok {
		return "", fmt.Errorf("team %s has no member %q", team, member)
	}
	claudeDir := relaunch.ClaudeConfigDir(st)
	req, err := pendingRequest(claudeDir, st.ClaudeTeam, team, member, requestID)
	if err != nil {
		return "", err
	}
	kind, deny := "approved"+by.suffix(), ""
	if !approve {
		if reason == "" {
			reason = "denied by a person (" + by.commandOr("teamctl deny") + ")" // read by the teammate's model: no address
		}
		kind, deny = "denied: "+reason+by.suffix(), reason
	}
	if err := claudecode.AnswerRequest(ctx, claudeDir, st.ClaudeTeam, member, req, deny); err != nil {
		return "", err
	}
	ev, err := state.OpenEventLog(team)
	if err != nil {
		return "", err
	}
	defer ev.Close()
	return req.RequestID, ev.Append(by.mark(state.Event{Kind: state.EventPermissionAnswer, Member: member, RequestID: req.RequestID, Tool: req.ToolName, Detail: kind}))
}

// pendingRequest finds member's permission request: the one named, else the
// newest from that member that no answer in the event log names. A request is
// member's when member wrote it and its agent_id names member
// (claudecode.RequestFrom).
func pendingRequest(configDir, claudeTeam, team, member, id string) (claudecode.PermissionRequest, error) {
	inbox, err := claudecode.InboxPath(configDir, claudeTeam, claudecode.LeadMailboxName)
	if err != nil {
		return claudecode.PermissionRequest{}, err
	}
	msgs, err := claudecode.ReadMailbox(inbox)
	if err != nil {
		return claudecode.PermissionRequest{}, err
	}
	answered := map[string]bool{}
	evs, _ := state.ReadEvents(team)
	for _, e := range evs {
		if e.Kind == state.EventPermissionAnswer {
			answered[e.RequestID] = true
		}
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		v, _ := claudecode.ParseProtocol(msgs[i].Text)
		p, ok := v.(claudecode.PermissionRequest)
		if !ok {
			continue
		}
		// Member's own: written by it, naming it (not one another teammate
		// wrote in its name).
		if from, err := claudecode.RequestFrom(msgs[i], p, claudeTeam); err != nil || from != member {
			continue
		}
		if id != "" && p.RequestID == id {
			return p, nil
		}
		if id == "" && !answered[p.RequestID] {
			return p, nil
		}
	}
	if id != "" {
		return claudecode.PermissionRequest{}, fmt.Errorf("%s has no permission request %q", member, id)
	}
	return claudecode.PermissionRequest{}, fmt.Errorf("%s has no permission request waiting", member)
}
