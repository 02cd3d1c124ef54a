package claudecode

import (
	"slices"
	"testing"
)

func TestLeadArgv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		spec LeadSpec
		want []string
	}{
		{"minimal", LeadSpec{Program: "claude", SessionID: "S"},
			[]string{"claude", "--session-id=S"}},
		{"full", LeadSpec{Program: "/bin/claude", ProgramArgs: []string{"--debug"}, SessionID: "S",
			TeammateMode: "tmux", Model: "opus", PermissionMode: "manual",
			Args: []string{"--add-dir", "/x"}, Prompt: "-starts with dash"},
			[]string{"/bin/claude", "--debug", "--session-id=S", "--teammate-mode", "tmux",
				"--model", "opus", "--permission-mode", "manual", "--add-dir", "/x", "--", "-starts with dash"}},
		{"prompt only", LeadSpec{Program: "claude", SessionID: "S", Prompt: "hi"},
			[]string{"claude", "--session-id=S", "--", "hi"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := LeadArgv(tc.spec); !slices.Equal(got, tc.want) {
				t.Errorf("LeadArgv = %q\nwant       %q", got, tc.want)
			}
		})
	}
}

func TestLeadArgvDoesNotAliasProgramArgs(t *testing.T) {
	t.Parallel()
	pa := make([]string, 1, 10)
	pa[0] = "--x"
	LeadArgv(LeadSpec{Program: "c", ProgramArgs: pa, SessionID: "S"})
	if got := pa[:2]; got[1] != "" {
		t.Errorf("LeadArgv wrote into ProgramArgs' backing array: %q", got)
	}
}

func TestTeammateArgv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		spec TeammateSpec
		want []string
	}{
		{"minimal", TeammateSpec{Program: "claude", Name: "r", Team: "T", ParentSessionID: "P"},
			[]string{"claude", "--agent-id", "r@T", "--agent-name", "r", "--team-name", "T",
				"--parent-session-id=P"}},
		{"full", TeammateSpec{Program: "claude", ProgramArgs: []string{"--a"}, Name: "researcher",
			Team: "session-12345678", Color: "blue", ParentSessionID: "P", PlanModeRequired: true,
			AgentType: "Explore", Model: "sonnet", PermissionMode: "manual", Args: []string{"--b", "c"}, SessionID: "S"},
			[]string{"claude", "--a", "--agent-id", "researcher@session-12345678", "--agent-name", "researcher",
				"--team-name", "session-12345678", "--agent-color", "blue", "--parent-session-id=P",
				"--session-id=S", "--plan-mode-required", "--agent-type", "Explore", "--model", "sonnet",
				"--permission-mode", "manual", "--b", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := TeammateArgv(tc.spec); !slices.Equal(got, tc.want) {
				t.Errorf("TeammateArgv = %q\nwant           %q", got, tc.want)
			}
		})
	}
}

func TestEnv(t *testing.T) {
	t.Parallel()
	if got := LeadEnv(); !slices.Equal(got, []string{"CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1"}) {
		t.Errorf("LeadEnv = %q", got)
	}
	if got := TeammateEnv(); !slices.Equal(got, []string{"CLAUDECODE=1", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1"}) {
		t.Errorf("TeammateEnv = %q", got)
	}
}
