package team

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/relaunch"
	"github.com/teamctl/teamctl/state"
)

// ask writes a permission request into team's lead mailbox as Claude Code's
// teammate from writes it, its agent_id naming agent (NAME@TEAM, as a
// teammate runs with --agent-id).
func (f *fakeWorld) ask(team, from, agent, id, command string) {
	f.t.Helper()
	st := f.state(team)
	inbox, err := claudecode.InboxPath(relaunch.ClaudeConfigDir(st), st.ClaudeTeam, claudecode.LeadMailboxName)
	if err != nil {
		f.t.Fatal(err)
	}
	if agent == "" {
		agent = from + "@" + st.ClaudeTeam
	}
	req := claudecode.PermissionRequest{RequestID: id, AgentID: agent, ToolName: "Bash", ToolUseID: "toolu_" + id,
		Input: json.RawMessage(`{"command":"` + command + `"}`)}
	if err := claudecode.AppendMessage(f.ctx, inbox, claudecode.PermissionRequestMessage(from, req, f.clock.now)); err != nil {
		f.t.Fatal(err)
	}
}

// responses are the permission responses in member's mailbox, in order.
func responses(t *testing.T, st *state.Team, member string) []claudecode.PermissionResponse {
	t.Helper()
	var out []claudecode.PermissionResponse
	for _, text := range inboxTexts(t, st, member) {
		if v, ok := claudecode.ParseProtocol(text); ok {
			if r, ok := v.(claudecode.PermissionResponse); ok {
				out = append(out, r)
			}
		}
	}
	return out
}

// TestApproveDeny: which of a teammate's permission requests approve and
// deny answer (the one named, else its newest not answered yet; never one
// another teammate wrote in its name), what the teammate finds in its
// mailbox (Claude Code's permission_response: success lets the tool run,
// error with the reason refuses it), the event recorded, and what is refused
// with nothing written. Neither asks anything of tmux.
func TestApproveDeny(t *testing.T) {
	for _, c := range []struct {
		name    string
		setup   func(f *fakeWorld) // the requests in the lead's mailbox, and what happened before
		member  string
		request string // the request named ("": the pending one)
		deny    bool
		reason  string
		by      By
		// what comes of it: the request answered, the response in the
		// member's mailbox (subtype, error) and the event's detail; or err.
		answered, subtype, errText, detail string
		err                                string
	}{{
		name: "approve: the member's newest request, its tool let run",
		setup: func(f *fakeWorld) {
			f.ask("alpha", "worker", "", "perm-1", "make test")
			f.ask("alpha", "worker", "", "perm-2", "make lint")
		},
		member:   "worker",
		answered: "perm-2", subtype: claudecode.PermissionSuccess, detail: "approved",
	}, {
		name: "approve: the request named, though a newer one waits",
		setup: func(f *fakeWorld) {
			f.ask("alpha", "worker", "", "perm-1", "make test")
			f.ask("alpha", "worker", "", "perm-2", "make lint")
		},
		member: "worker", request: "perm-1",
		answered: "perm-1", subtype: claudecode.PermissionSuccess, detail: "approved",
	}, {
		name: "approve: a request answered already is passed by for the one before it",
		setup: func(f *fakeWorld) {
			f.ask("alpha", "worker", "", "perm-1", "make test")
			f.ask("alpha", "worker", "", "perm-2", "make lint")
			if _, err := f.open("alpha").Approve(f.ctx, "worker", "perm-2"); err != nil {
				f.t.Fatal(err)
			}
		},
		member:   "worker",
		answered: "perm-1", subtype: claudecode.PermissionSuccess, detail: "approved",
	}, {
		name:   "deny with a reason: the teammate reads it",
		setup:  func(f *fakeWorld) { f.ask("alpha", "worker", "", "perm-1", "rm -rf build") },
		member: "worker", deny: true, reason: "not now",
		answered: "perm-1", subtype: claudecode.PermissionError, errText: "not now", detail: "denied: not now",
	}, {
		name:   "deny without a reason: the default one names the command",
		setup:  func(f *fakeWorld) { f.ask("alpha", "worker", "", "perm-1", "rm -rf build") },
		member: "worker", deny: true,
		answered: "perm-1", subtype: claudecode.PermissionError,
		errText: "denied by a person (teamctl deny)", detail: "denied: denied by a person (teamctl deny)",
	}, {
		name:   "deny from the web cockpit: its event and reason say so",
		setup:  func(f *fakeWorld) { f.ask("alpha", "worker", "", "perm-1", "rm -rf build") },
		member: "worker", deny: true, by: By{Via: "web", From: "127.0.0.1:5555"},
		answered: "perm-1", subtype: claudecode.PermissionError,
		errText: "denied by a person (teamctl serve)", detail: "denied: denied by a person (teamctl serve) (teamctl serve, from 127.0.0.1:5555)",
	}, {
		name:     "approve: the agent_id may be the bare name, as Claude Code writes it",
		setup:    func(f *fakeWorld) { f.ask("alpha", "worker", "worker", "perm-1", "make test") },
		member:   "worker",
		answered: "perm-1", subtype: claudecode.PermissionSuccess, detail: "approved",
	}, {
		name:   "refused: a request another teammate wrote in the member's name is not its",
		setup:  func(f *fakeWorld) { f.ask("alpha", "pal", "worker", "perm-forged", "make deploy") },
		member: "worker",
		err:    "worker has no permission request waiting",
	}, {
		name: "refused: every request answered",
		setup: func(f *fakeWorld) {
			f.ask("alpha", "worker", "", "perm-1", "make test")
			if _, err := f.open("alpha").Deny(f.ctx, "worker", "", ""); err != nil {
				f.t.Fatal(err)
			}
		},
		member: "worker",
		err:    "worker has no permission request waiting",
	}, {
		name:   "refused: a request named that the member did not make",
		setup:  func(f *fakeWorld) { f.ask("alpha", "worker", "", "perm-1", "make test") },
		member: "worker", request: "perm-9",
		err: `worker has no permission request "perm-9"`,
	}, {
		name:   "refused: no such member",
		setup:  func(f *fakeWorld) { f.ask("alpha", "worker", "", "perm-1", "make test") },
		member: "nobody",
		err:    `team alpha has no member "nobody"`,
	}, {
		name: "refused: the team is down",
		setup: func(f *fakeWorld) {
			f.ask("alpha", "worker", "", "perm-1", "make test")
			if _, err := down(f.ctx, f.world(), "alpha", DownOptions{Now: true}); err != nil {
				f.t.Fatal(err)
			}
		},
		member: "worker",
		err:    "team alpha is down: `teamctl up " + "${cwd}/team.yaml` first",
	}} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeWorld(t)
			st := f.up(f.layout("team.yaml", alpha))
			c.setup(f)
			before := responses(t, st, "worker")
			answersBefore := len(f.events("alpha", state.EventPermissionAnswer))
			f.log = nil
			tm := f.open("alpha")
			tm.ActingAs(c.by)
			var id string
			var err error
			if c.deny {
				id, err = tm.Deny(f.ctx, c.member, c.request, c.reason)
			} else {
				id, err = tm.Approve(f.ctx, c.member, c.request)
			}
			f.wantLog() // the answer goes through the mailbox, nothing is typed
			got := responses(t, st, "worker")
			evs := f.events("alpha", state.EventPermissionAnswer)[answersBefore:]
			if c.err != "" {
				if want := f.expand(c.err); err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("answer: %q, %v; want an error saying %q", id, err, want)
				}
				if len(got) != len(before) || len(evs) != 0 {
					t.Errorf("a refused answer wrote %+v and recorded %+v", got[len(before):], evs)
				}
				return
			}
			if err != nil || id != c.answered {
				t.Fatalf("answer: %q, %v; want %q answered", id, err, c.answered)
			}
			if len(got) != len(before)+1 {
				t.Fatalf("worker's mailbox has %d responses, want %d", len(got), len(before)+1)
			}
			r := got[len(got)-1]
			if r.RequestID != c.answered || r.ToolUseID != "toolu_"+c.answered || r.Subtype != c.subtype || r.Error != c.errText {
				t.Errorf("worker's mailbox: %+v; want %s of %s with error %q", r, c.subtype, c.answered, c.errText)
			}
			if c.subtype == claudecode.PermissionSuccess && (r.Response == nil || !strings.Contains(string(r.Response.UpdatedInput), `"command"`)) {
				t.Errorf("an approval without the request's input to run: %+v", r.Response)
			}
			if len(evs) != 1 || evs[0].Member != "worker" || evs[0].RequestID != c.answered || evs[0].Tool != "Bash" ||
				evs[0].Detail != c.detail || evs[0].Via != c.by.Via || evs[0].From != c.by.From {
				t.Errorf("permission-answer events %+v, want one for %s saying %q", evs, c.answered, c.detail)
			}
		})
	}
}
