package launch

import (
	"reflect"
	"testing"

	"github.com/teamctl/teamctl/state"
)

func TestRestartArgvResumesTheLead(t *testing.T) {
	lead := &state.Member{Role: state.RoleLead, SessionID: "U",
		Argv: []string{"/bin/claude", "--session-id", "U", "--teammate-mode", "tmux", "--model", "opus", "--", "first prompt"}}
	want := []string{"/bin/claude", "--resume", "U", "--teammate-mode", "tmux", "--model", "opus"}
	if got := ResumeArgv(lead); !reflect.DeepEqual(got, want) {
		t.Errorf("lead: %q, want %q", got, want)
	}
}

func TestRestartWanted(t *testing.T) {
	zero, one := 0, 1
	for _, c := range []struct {
		policy string
		code   *int
		sig    int
		want   bool
	}{
		{"never", &one, 0, false},
		{"always", &zero, 0, true},
		{"on-failure", &zero, 0, false},
		{"on-failure", &one, 0, true},
		{"on-failure", nil, 0, true}, // status unknown: taken as a failure
		{"on-failure", nil, 9, true},
		{"", &zero, 0, false}, // the default is on-failure
		{"", &one, 0, true},
	} {
		if got := RestartWanted(c.policy, c.code, c.sig); got != c.want {
			t.Errorf("RestartWanted(%q, %v, %d) = %v, want %v", c.policy, c.code, c.sig, got, c.want)
		}
	}
}
