package supervisor

import (
	"reflect"
	"testing"

	"github.com/teamctl/teamctl/state"
)

func TestRestartArgvResumesTheLead(t *testing.T) {
	lead := &state.Member{Role: state.RoleLead, SessionID: "U",
		Argv: []string{"/bin/claude", "--session-id", "U", "--teammate-mode", "tmux", "--model", "opus", "--", "first prompt"}}
	want := []string{"/bin/claude", "--resume", "U", "--teammate-mode", "tmux", "--model", "opus"}
	if got := resumeArgv(lead); !reflect.DeepEqual(got, want) {
		t.Errorf("lead: %q, want %q", got, want)
	}
}
