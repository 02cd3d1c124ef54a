package state

import "testing"

// TestShown: every view says working for an agent member whose program
// runs (Claude Code, or a process running Codex or Gemini CLI), running for
// a plain process, and any other state as it is.
func TestShown(t *testing.T) {
	for _, c := range []struct {
		s     MemberState
		r     Role
		agent string
		want  MemberState
	}{
		{StateRunning, RoleLead, "", StateWorking},
		{StateRunning, RoleTeammate, "", StateWorking},
		{StateRunning, RoleProcess, "", StateRunning},
		{StateRunning, RoleProcess, "codex", StateWorking},
		{StateRunning, RoleProcess, "gemini", StateWorking},
		{StateIdle, RoleProcess, "codex", StateIdle},
		{StateStalled, RoleLead, "", StateStalled},
	} {
		if got := c.s.Shown(c.r, c.agent); got != c.want {
			t.Errorf("%s %s %q: %s, want %s", c.s, c.r, c.agent, got, c.want)
		}
	}
}
