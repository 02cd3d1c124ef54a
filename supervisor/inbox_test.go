package supervisor

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/state"
)

// TestLeadInboxAsRead: the lead's inbox, as it is read one time after
// another, and exactly the events the daemon writes for it: an inbox that
// does not parse is reported once a version, one too large once while it
// stays so, one through a link once until it is read again, an error of
// another kind not at all; messages once each, and none before the last one
// seen.
func TestLeadInboxAsRead(t *testing.T) {
	const path = "/claude/teams/session-0123abcd/inboxes/team-lead.json" // as read: nothing is read here
	corrupt := func(version string) inboxRead {
		return inboxRead{path: path, err: &claudecode.CorruptMailboxError{Path: path, Err: errors.New("unexpected end of JSON input")}, version: version}
	}
	large := inboxRead{path: path, err: &claudecode.TooLargeError{What: "mailbox", Path: path, Size: 300 << 20, Limit: 16 << 20}}
	link := inboxRead{path: path, err: &claudecode.LinkError{Path: path}}
	msgs := func(texts ...string) inboxRead {
		r := inboxRead{path: path}
		for i, text := range texts {
			r.msgs = append(r.msgs, claudecode.Message{From: "mate", Text: text, Timestamp: "2026-12-01T09:00:0" + string(rune('0'+i)) + ".000Z"})
		}
		return r
	}
	for _, c := range []struct {
		name  string
		reads []inboxRead
		want  []wantEvent
	}{
		{"corrupt: once a version", []inboxRead{corrupt("1-1"), corrupt("1-1"), corrupt("2-2"), corrupt("")}, []wantEvent{
			{state.EventMailboxCorrupt, claudecode.LeadMailboxName, path + " does not parse (unexpected end of JSON input); left as it is"},
			{state.EventMailboxCorrupt, claudecode.LeadMailboxName, "does not parse"},
		}},
		{"too large: once while it stays so", []inboxRead{large, large, msgs(), large}, []wantEvent{
			{state.EventMailboxTooLarge, claudecode.LeadMailboxName, path + " is 314572800 bytes, over the limit of 16777216"},
			{state.EventMailboxTooLarge, claudecode.LeadMailboxName, "over the limit"},
		}},
		{"a link: once until read again", []inboxRead{link, link, msgs(), link}, []wantEvent{
			{state.EventFileRefused, "", "not read: " + path + " is a symlink"},
			{state.EventFileRefused, "", "is a symlink"},
		}},
		{"another error: nothing", []inboxRead{{path: path, err: &fs.PathError{Op: "open", Path: path, Err: fs.ErrPermission}}}, nil},
		{"messages: once each", []inboxRead{msgs("first"), msgs("first", "second"), msgs("first", "second")}, []wantEvent{
			{state.EventMessage, "mate", "first"},
			{state.EventMessage, "mate", "second"},
		}},
		{"what comes before the last message seen was seen", []inboxRead{msgs("zeroth", "second"), msgs("first", "second", "third")}, []wantEvent{
			{state.EventMessage, "mate", "zeroth"},
			{state.EventMessage, "mate", "second"},
			{state.EventMessage, "mate", "third"},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""})
			got := w.written(func() {
				for _, r := range c.reads {
					w.s.fromLeadInbox(w.ctx, r)
				}
			})
			checkEvents(t, got, c.want)
		})
	}
}
