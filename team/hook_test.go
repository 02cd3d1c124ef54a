package team

import (
	"os"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/state"
)

// TestHookCallerValid: a hook is recorded only with a team's and a member's
// name and a tmux pane id.
func TestHookCallerValid(t *testing.T) {
	for _, c := range []struct {
		caller HookCaller
		want   bool
	}{
		{HookCaller{"auth-fix", "lead", "%0"}, true},
		{HookCaller{"auth-fix", "Mate_2.b", "%1234567890"}, true},
		{HookCaller{"", "lead", "%0"}, false},
		{HookCaller{"../x", "lead", "%0"}, false},
		{HookCaller{"auth-fix", "", "%0"}, false},
		{HookCaller{"auth-fix", "-lead", "%0"}, false},
		{HookCaller{"auth-fix", "lead", ""}, false},
		{HookCaller{"auth-fix", "lead", "%"}, false},
		{HookCaller{"auth-fix", "lead", "0"}, false},
		{HookCaller{"auth-fix", "lead", "%1a"}, false},
		{HookCaller{"auth-fix", "lead", "%12345678901"}, false},
	} {
		if got := c.caller.Valid(); got != c.want {
			t.Errorf("%+v: Valid %v, want %v", c.caller, got, c.want)
		}
	}
}

// TestRecordHook: a hook becomes an event of the member and the pane it ran
// in, its event and detail cut short; for a team without a state folder it
// makes none.
func TestRecordHook(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	if err := state.Save(&state.Team{Team: "auth-fix", Socket: state.SocketName("auth-fix"), SocketPath: state.SocketPath("auth-fix"), Session: "auth-fix"}); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 2000)
	if err := RecordHook(HookCaller{"auth-fix", "mate", "%3"}, claudecode.Hook{Event: "Notification", Type: "idle_prompt", Message: long}); err != nil {
		t.Fatal(err)
	}
	evs, err := state.ReadEvents("auth-fix")
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 {
		t.Fatalf("events %+v", evs)
	}
	e := evs[0]
	if e.Kind != state.EventHook || e.Member != "mate" || e.Pane != "%3" || e.Hook != "Notification" ||
		!strings.HasPrefix(e.Detail, "Notification idle_prompt xxx") || len(e.Detail) > 1000+len("…") {
		t.Errorf("event %+v", e)
	}

	if err := RecordHook(HookCaller{"nosuch", "mate", "%3"}, claudecode.Hook{Event: "Stop"}); err == nil {
		t.Error("a hook of a team without state: no error")
	}
	if dir, _ := state.Dir("nosuch"); dir == "" {
		t.Fatal("no folder name for nosuch")
	} else if _, err := os.Stat(dir); err == nil {
		t.Errorf("a hook made %s", dir)
	}
}

// TestDeliverAnswer: a Codex member's answer is queued for the lead once,
// and only when the lead is owed it (it sent the member text), the turn
// that ended answered that text (not an earlier turn ending as the lead
// typed), and the hook ran in the member's own pane; control characters
// and newlines become spaces.
func TestDeliverAnswer(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	if err := state.Save(&state.Team{Team: "mixed", Socket: state.SocketName("mixed"), SocketPath: state.SocketPath("mixed"), Session: "mixed",
		Members: []state.Member{
			{Name: "lead", Role: state.RoleLead, Pane: "%0"},
			{Name: "rev", Role: state.RoleProcess, Agent: "codex", Pane: "%1"},
			{Name: "web", Role: state.RoleProcess, Pane: "%2"},
		}}); err != nil {
		t.Fatal(err)
	}
	queued := func() []string {
		var out []string
		state.ReadLeadQueue("mixed", 0, func(text string, _ int64) { out = append(out, text) })
		return out
	}
	rev := HookCaller{"mixed", "rev", "%1"}
	DeliverAnswer(rev, []string{"review it"}, "not owed")
	if q := queued(); len(q) != 0 {
		t.Fatalf("an answer not owed was queued: %q", q)
	}
	if err := state.OweAnswer("mixed", "rev", "lead", "please review auth.go"); err != nil {
		t.Fatal(err)
	}
	DeliverAnswer(HookCaller{"mixed", "rev", "%2"}, []string{"please review auth.go"}, "from another pane") // web's pane naming rev
	DeliverAnswer(rev, []string{"say hello"}, "the end of an earlier turn")
	if err := DeliverAnswer(rev, []string{"please  review\nauth.go"}, "all\ndone\x1b[Z here"); err != nil {
		t.Fatal(err)
	}
	DeliverAnswer(rev, []string{"please review auth.go"}, "a second turn") // owed once
	if q := queued(); len(q) != 1 || q[0] != "[rev (codex) answers your teamctl send] all done [Z here" {
		t.Errorf("queued for the lead: %q", q)
	}
}
