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
