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

// TestRestartArgvResumesATeammate: a teammate's --session-id becomes
// --resume; arguments after a "--" of its own stay (only a lead's "--" is
// followed by its first prompt).
func TestRestartArgvResumesATeammate(t *testing.T) {
	mate := &state.Member{Role: state.RoleTeammate, SessionID: "T",
		Argv: []string{"/bin/claude", "--agent-id", "r@s", "--parent-session-id", "U", "--session-id", "T", "--x", "--", "y"}}
	want := []string{"/bin/claude", "--agent-id", "r@s", "--parent-session-id", "U", "--resume", "T", "--x", "--", "y"}
	if got := ResumeArgv(mate); !reflect.DeepEqual(got, want) {
		t.Errorf("teammate: %q, want %q", got, want)
	}
	if got := RelaunchArgv(mate, true); !reflect.DeepEqual(got, want) {
		t.Errorf("RelaunchArgv of a teammate that resumes: %q, want %q", got, want)
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

// TestRelaunchArgv: a member is relaunched with the argv it started with;
// the lead and a Claude Code teammate resume their conversation only when told
// Claude Code stored it, and a plain process never does.
func TestRelaunchArgv(t *testing.T) {
	lead := &state.Member{Role: state.RoleLead, Argv: []string{"/bin/claude", "--session-id", "U", "--", "go"}}
	mate := &state.Member{Role: state.RoleTeammate, Argv: []string{"/bin/claude", "--agent-id", "m@T", "--session-id", "M"}}
	proc := &state.Member{Role: state.RoleProcess, Argv: []string{"/bin/web", "--session-id", "X"}}
	for _, c := range []struct {
		m      *state.Member
		resume bool
		want   []string
	}{
		{lead, true, []string{"/bin/claude", "--resume", "U"}},
		{lead, false, []string{"/bin/claude", "--session-id", "U", "--", "go"}},
		{mate, true, []string{"/bin/claude", "--agent-id", "m@T", "--resume", "M"}},
		{proc, true, []string{"/bin/web", "--session-id", "X"}},
	} {
		if got := RelaunchArgv(c.m, c.resume); !reflect.DeepEqual(got, c.want) {
			t.Errorf("RelaunchArgv(%q, %v) = %q, want %q", c.m.Argv, c.resume, got, c.want)
		}
	}
}
