package launch

import (
	"reflect"
	"testing"

	"github.com/teamctl/teamctl/state"
)

func TestRestartArgvResumesTheLead(t *testing.T) {
	argv := []string{"/bin/claude", "--session-id=U", "--teammate-mode", "tmux", "--model", "opus", "--", "first prompt"}
	want := []string{"/bin/claude", "--resume=U", "--teammate-mode", "tmux", "--model", "opus"}
	if got := ResumeArgv(state.RoleLead, argv); !reflect.DeepEqual(got, want) {
		t.Errorf("lead: %q, want %q", got, want)
	}
	// As teamctl up to issue 21 gave it: the same.
	spaced := []string{"/bin/claude", "--session-id", "U", "--teammate-mode", "tmux", "--model", "opus", "--", "first prompt"}
	if got := ResumeArgv(state.RoleLead, spaced); !reflect.DeepEqual(got, want) {
		t.Errorf("lead, --session-id U: %q, want %q", got, want)
	}
}

// TestRestartArgvResumesATeammate: a teammate's --session-id becomes
// --resume; arguments after a "--" of its own stay (only a lead's "--" is
// followed by its first prompt).
func TestRestartArgvResumesATeammate(t *testing.T) {
	x := Launch{Role: state.RoleTeammate, SessionID: "T",
		Argv: []string{"/bin/claude", "--agent-id", "r@s", "--parent-session-id=U", "--session-id=T", "--x", "--", "y"}}
	want := []string{"/bin/claude", "--agent-id", "r@s", "--parent-session-id=U", "--resume=T", "--x", "--", "y"}
	if got := ResumeArgv(x.Role, x.Argv); !reflect.DeepEqual(got, want) {
		t.Errorf("teammate: %q, want %q", got, want)
	}
	if got := x.ArgvFor(true); !reflect.DeepEqual(got, want) {
		t.Errorf("ArgvFor of a teammate that resumes: %q, want %q", got, want)
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

// TestArgvFor: a member is launched with its argv; the lead and a Claude Code
// teammate resume their conversation only when told Claude Code stored it,
// and a plain process never does.
func TestArgvFor(t *testing.T) {
	lead := Launch{Role: state.RoleLead, Argv: []string{"/bin/claude", "--session-id=U", "--", "go"}}
	mate := Launch{Role: state.RoleTeammate, Argv: []string{"/bin/claude", "--agent-id", "m@T", "--session-id=M"}}
	proc := Launch{Role: state.RoleProcess, Argv: []string{"/bin/web", "--session-id=X"}}
	for _, c := range []struct {
		x      Launch
		resume bool
		want   []string
	}{
		{lead, true, []string{"/bin/claude", "--resume=U"}},
		{lead, false, []string{"/bin/claude", "--session-id=U", "--", "go"}},
		{mate, true, []string{"/bin/claude", "--agent-id", "m@T", "--resume=M"}},
		{proc, true, []string{"/bin/web", "--session-id=X"}},
	} {
		if got := c.x.ArgvFor(c.resume); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ArgvFor(%q, %v) = %q, want %q", c.x.Argv, c.resume, got, c.want)
		}
	}
}
