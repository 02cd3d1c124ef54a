package e2e

import (
	"testing"

	"github.com/teamctl/teamctl/internal/fakeapi"
)

// TestSendReachesTheModel: `teamctl send` to a real Claude Code teammate arrives
// through its mailbox and reaches the model as a new user turn.
func TestSendReachesTheModel(t *testing.T) {
	t.Parallel()
	const first, second = "First turn; token SEND-FIRST-3a1d.", "Second turn; token SEND-SECOND-9b7e."
	w := newWorld(t, "e2e-send", true, fakeapi.DefaultScript)
	w.e.MustRun("up", w.layout("", member{"alice", first}))
	w.waitRequest("alice's first turn", func(r fakeapi.Request) bool { return r.UserTextContains(first) })
	// Claude Code's hooks (teamctl passes them with --settings) call `teamctl
	// hook` when the turn ends, in alice's pane: Claude Code passes TMUX_PANE
	// on to them, and a hook records only with it.
	pane := w.paneOf("alice")
	poll(t, wait, "a hook event from alice's pane", func() (bool, string) {
		for _, e := range w.events() {
			if e.Kind == "hook" && e.Member == "alice" && e.Pane == pane {
				return true, ""
			}
		}
		return false, eventLines(w.events())
	})
	w.e.MustRun("send", "alice", second, "--team", w.team)
	r := w.waitRequest("the sent text as a new turn", func(r fakeapi.Request) bool {
		return r.IsTurn() && r.UserTextContains(second)
	})
	if !r.UserTextContains(`teammate_id="team-lead"`) {
		t.Errorf("the sent text did not arrive as a message from team-lead:\n%s", r)
	}
	if t.Failed() {
		w.dump()
	}
}
