package supervisor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor/internal/filewatch"
)

// maxSeenLeadInboxEntries is how many keys of the lead inbox's messages
// live.json keeps (what comes before the last one seen was seen).
const maxSeenLeadInboxEntries = 5000

// fromLeadInbox turns the new messages of the lead's inbox, as read, into
// state and events; an inbox not read (a link, too large, corrupt) is
// reported once.
func (s *daemon) fromLeadInbox(ctx context.Context, r inboxRead) {
	msgs, err := r.msgs, r.err
	var corrupt *claudecode.CorruptMailboxError
	var large *claudecode.MailboxTooLargeError
	var link *claudecode.LinkError
	if !errors.As(err, &large) {
		s.seen.tooLarge = false
	}
	if errors.As(err, &link) {
		s.refusals(filewatch.Inbox, map[string]error{link.Path: err})
	} else {
		s.refusals(filewatch.Inbox, nil)
	}
	switch {
	case link != nil:
		// Reported (refusals); nothing read.
	case errors.As(err, &large):
		// Not loaded (claudecode refuses it unread); reported once while it
		// stays too large, however often teammates write to it.
		if !s.seen.tooLarge {
			s.seen.tooLarge = true
			s.event(state.Event{Kind: state.EventMailboxTooLarge, Member: claudecode.LeadMailboxName, Detail: fmt.Sprintf("%s is %d bytes, over the limit of %d; not read until it is smaller", large.Path, large.Size, large.Limit)})
		}
	case errors.As(err, &corrupt):
		// Never overwritten (claudecode keeps it as it is); reported once per
		// version of the file, and read again when it changes.
		if r.version != "" && r.version != s.seen.corruptMark {
			s.seen.corruptMark = r.version
			s.event(state.Event{Kind: state.EventMailboxCorrupt, Member: claudecode.LeadMailboxName, Detail: fmt.Sprintf("%s does not parse (%v); left as it is", r.path, corrupt.Err)})
		}
	case err != nil:
		s.log.Warn("lead inbox", "err", err)
	default:
		seen := map[string]bool{}
		for _, k := range s.live.LeadInboxSeen {
			seen[k] = true
		}
		// Messages are appended: what comes before the last one seen was
		// seen, even when it is older than the keys kept (a mailbox of
		// 200k messages would otherwise be reported again at every read).
		keys := make([]string, len(msgs))
		from := 0
		for i := len(msgs) - 1; i >= 0; i-- {
			keys[i] = messageKey(msgs[i])
			if seen[keys[i]] {
				from = i + 1
				break
			}
		}
		for i := from; i < len(msgs); i++ {
			k := keys[i]
			if seen[k] {
				continue
			}
			seen[k] = true
			s.live.LeadInboxSeen = append(s.live.LeadInboxSeen, k)
			s.fromTeammate(ctx, msgs[i])
		}
		if n := len(s.live.LeadInboxSeen); n > maxSeenLeadInboxEntries {
			s.live.LeadInboxSeen = s.live.LeadInboxSeen[n-maxSeenLeadInboxEntries:]
		}
	}
}

func messageKey(m claudecode.Message) string {
	sum := sha256.Sum256([]byte(m.From + "\x00" + m.Timestamp + "\x00" + m.Text))
	return hex.EncodeToString(sum[:8])
}

// fromTeammate turns one message to the lead into state and an event. A
// permission request or idle notification changes the state only of the
// teammate that wrote it (see teammateOf); one that names another member, or
// comes from anyone but a teammate, is reported and left alone.
func (s *daemon) fromTeammate(ctx context.Context, msg claudecode.Message) {
	s.fromTeammateAgain(ctx, msg, false)
}

// maxEarly bounds the permission requests kept for a name not yet a member.
const maxEarly = 64

// earlyAgain looks again at the permission requests that came from a name
// that was no member yet: a teammate the lead spawns can write its first
// request before the lead's config.json names it, or before its pane is
// adopted.
func (s *daemon) earlyAgain(ctx context.Context) {
	early := s.early
	s.early = nil
	for _, m := range early {
		s.fromTeammateAgain(ctx, m, true)
	}
}

// fromTeammateAgain is fromTeammate; again, the message was looked at
// before (its name was no member then), and what was said is not said again.
func (s *daemon) fromTeammateAgain(ctx context.Context, msg claudecode.Message, again bool) {
	v, ok := claudecode.ParseProtocol(msg.Text)
	switch p := v.(type) {
	case claudecode.PermissionRequest:
		from, ferr := claudecode.RequestFrom(msg, p, s.st.ClaudeTeam)
		name, err := s.teammateOf(from, ferr)
		if err != nil {
			if _, member := s.st.Member(from); ferr == nil && !member {
				s.early = append(s.early, msg)
				if len(s.early) > maxEarly {
					s.early = s.early[len(s.early)-maxEarly:]
				}
			}
			if !again {
				s.message(sender(msg.From), fmt.Sprintf("permission request %s left alone: %v", textsafe.Short(p.RequestID, 80), err))
			}
			return
		}
		w := s.watchOf(name)
		req := &state.Request{ID: p.RequestID, Tool: p.ToolName, Description: p.Description, Input: textsafe.Short(string(p.Input), 200), Since: s.clock.Now().UTC()}
		if s.answerByRule(ctx, name, p, req) {
			return
		}
		if w != nil && (w.live.State == state.StateExited || w.live.State == state.StateFailed) {
			// Written by a run that has ended: nobody waits for the answer.
			s.event(state.Event{Kind: state.EventMessage, Member: name, Pane: w.id, Detail: fmt.Sprintf("permission request %s of a run that has ended: %s %s", p.RequestID, p.ToolName, req.Input)})
			return
		}
		lm := &state.LiveMember{State: state.StateWaitingApproval, Since: req.Since, Request: req}
		if w != nil {
			lm.Pane = w.id
			w.live = lm
		}
		s.live.Members[name] = lm
		s.event(state.Event{Kind: state.EventPermissionRequest, Member: name, Pane: lm.Pane, Detail: fmt.Sprintf("%s %s: %s", p.ToolName, p.RequestID, req.Input), RequestID: p.RequestID, Tool: p.ToolName})
	case claudecode.IdleNotification:
		name, err := claudecode.IdleFrom(msg, p)
		if _, ok := s.st.Member(name); err == nil && !ok {
			return // none of the team's (yet): nothing to change
		}
		name, err = s.teammateOf(name, err)
		if err != nil {
			s.message(sender(msg.From), fmt.Sprintf("idle notification left alone: %v", err))
			return
		}
		w := s.watchOf(name)
		// An exit stands: the notice a teammate wrote on its way out (read
		// after its pane died) must not make it idle, or its restart, which
		// waits for an exited member, would never come.
		if w == nil || w.live.State == state.StateWaitingApproval || w.live.State == state.StateExited || w.live.State == state.StateFailed {
			return
		}
		w.live.Result = textsafe.Short(p.Result, 500)
		s.turnEnded(name)
		if w.live.State != state.StateIdle {
			w.live = &state.LiveMember{Pane: w.id, State: state.StateIdle, Since: s.clock.Now().UTC(), Result: w.live.Result}
			w.rechecked = false
			s.event(state.Event{Kind: state.EventIdle, Member: name, Pane: w.id, Detail: "idle_notification: " + textsafe.Short(p.Result, 200)})
		}
		s.live.Members[name] = w.live
	default:
		from := sender(msg.From)
		detail := textsafe.Short(msg.Text, 200)
		if ok {
			detail = fmt.Sprintf("%T", v)
		}
		if from == "" {
			detail = fmt.Sprintf("from %q: %s", textsafe.Short(msg.From, 80), detail)
		}
		s.message(from, detail)
	}
}

// sender is a message's from as a member name in an event: "" when it is no
// valid one (its detail then quotes it).
func sender(from string) string {
	if claudecode.ValidMemberName(from) {
		return from
	}
	return ""
}

// teammateOf passes on the name of a message's writer (claudecode.RequestFrom,
// IdleFrom) when it is a teammate of this team: one of the layout's or one
// the lead spawned, never the lead or a process member, whose state a
// message to the lead must not change.
func (s *daemon) teammateOf(name string, err error) (string, error) {
	if err != nil {
		return "", err
	}
	m, ok := s.st.Member(name)
	switch {
	case ok && m.Role != state.RoleTeammate:
		return "", fmt.Errorf("%s is the team's %s, not a teammate", name, m.Role)
	case !ok && !s.spawnedByLead(name):
		return "", fmt.Errorf("%s is no member of the team", name)
	}
	return name, nil
}

// spawnedByLead reports whether name is a teammate the lead spawned whose
// pane the daemon has not adopted yet: one the team's config.json lists
// besides the lead. Its request waits in live.json for the pane (sync).
func (s *daemon) spawnedByLead(name string) bool {
	if name == claudecode.LeadMailboxName {
		return false
	}
	cfg, err := claudecode.ReadTeamConfig(s.files.Paths().Config)
	if err != nil {
		return false
	}
	for _, m := range cfg.Members {
		if m.Name == name {
			return true
		}
	}
	return false
}

// restorePending shows again the permission requests of layout teammates
// still unanswered in the lead's inbox (no answer in the event log), for a
// team resumed on a new server: their states were left behind with the old
// one, and the inbox's messages were reported already. The last request of
// each teammate wins.
func (s *daemon) restorePending() {
	msgs, err := claudecode.ReadMailbox(s.files.Paths().LeadInbox)
	if err != nil {
		return
	}
	answered := map[string]bool{}
	evs, _ := state.ReadEvents(s.team)
	for _, e := range evs {
		if e.Kind == state.EventPermissionAnswer {
			answered[e.RequestID] = true
		}
	}
	for _, msg := range msgs {
		v, _ := claudecode.ParseProtocol(msg.Text)
		p, ok := v.(claudecode.PermissionRequest)
		if !ok || answered[p.RequestID] {
			continue
		}
		name, err := s.teammateOf(claudecode.RequestFrom(msg, p, s.st.ClaudeTeam))
		if err != nil {
			continue // reported when it was read
		}
		if m, _ := s.st.Member(name); m.Origin != state.OriginLayout {
			continue
		}
		req := &state.Request{ID: p.RequestID, Tool: p.ToolName, Description: p.Description, Input: textsafe.Short(string(p.Input), 200), Since: s.clock.Now().UTC()}
		lm := &state.LiveMember{State: state.StateWaitingApproval, Since: req.Since, Request: req}
		if w := s.watchOf(name); w != nil {
			lm.Pane = w.id
			w.live = lm
		}
		s.live.Members[name] = lm
	}
	s.saveLive()
}
