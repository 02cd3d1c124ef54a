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
	if got := RespawnArgs(mate, true); !reflect.DeepEqual(got[len(got)-len(want):], want) {
		t.Errorf("RespawnArgs of a teammate that resumes ends %q, want %q", got, want)
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

// TestRespawnArgs: a member is relaunched in its own pane (respawn-pane -k)
// with the argv, env and folder it started with; the lead resumes its
// conversation only when told Claude Code stored it.
func TestRespawnArgs(t *testing.T) {
	lead := &state.Member{Role: state.RoleLead, Pane: "%0", Cwd: "/w/#x", Env: []string{"A=1"},
		Argv: []string{"/bin/claude", "--session-id", "U", "--", "go"}}
	proc := &state.Member{Role: state.RoleProcess, Pane: "%2", Cwd: "/w", Argv: []string{"/bin/web"}}
	for _, c := range []struct {
		m      *state.Member
		resume bool
		want   []string
	}{
		{lead, true, []string{"respawn-pane", "-k", "-t", "%0", "-c", "/w/##x", "-e", "A=1", "/bin/claude", "--resume", "U"}},
		{lead, false, []string{"respawn-pane", "-k", "-t", "%0", "-c", "/w/##x", "-e", "A=1", "/bin/claude", "--session-id", "U", "--", "go"}},
		{proc, true, []string{"respawn-pane", "-k", "-t", "%2", "-c", "/w", "/bin/sh", "-c", `exec "$0"`, "/bin/web"}},
	} {
		if got := RespawnArgs(c.m, c.resume); !reflect.DeepEqual(got, c.want) {
			t.Errorf("RespawnArgs(%v, %v) =\n%q\nwant\n%q", c.m.Argv, c.resume, got, c.want)
		}
	}
}
