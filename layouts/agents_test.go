package layouts

import (
	"slices"
	"strings"
	"testing"
)

// TestAgentKinds: agent: on the team is the members' default and a member's
// own overrides it; agents: says how each CLI runs (its name by default); a
// Codex or Gemini member takes a model, a prompt, a permissionMode and args,
// and is neither Claude Code nor a plain process.
func TestAgentKinds(t *testing.T) {
	l, err := ParseBytes("t.yaml", []byte(`team: mixed
agent: codex
agents:
  gemini: {command: /opt/gemini, args: [--debug]}
lead: {}
members:
  - name: rev
    model: gpt-5
    prompt: review it
    permissionMode: acceptEdits
    args: [--search]
  - name: gem
    agent: gemini
  - name: cc
    agent: claude
  - name: tool
    command: [make, watch]
`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range l.All() {
		got = append(got, m.Name+":"+m.OtherAgent()+":"+map[bool]string{true: "claude", false: "-"}[m.IsClaude()])
	}
	if want := []string{"lead::claude", "rev:codex:-", "gem:gemini:-", "cc::claude", "tool::-"}; !slices.Equal(got, want) {
		t.Errorf("kinds %v, want %v", got, want)
	}
	rev := l.Members[0]
	if rev.Model != "gpt-5" || rev.Prompt != "review it" || rev.PermissionMode != "acceptEdits" || !slices.Equal(rev.Args, []string{"--search"}) {
		t.Errorf("rev: %+v", rev)
	}
	if l.Agents[AgentCodex].Command != "codex" || l.Agents[AgentGemini].Command != "/opt/gemini" || !slices.Equal(l.Agents[AgentGemini].Args, []string{"--debug"}) {
		t.Errorf("agents: %+v", l.Agents)
	}
	// A team of Codex members alone has no lead (no Claude Code team).
	l, err = ParseBytes("t.yaml", []byte("team: solo\nagent: gemini\nmembers:\n  - name: a\n"))
	if err != nil || l.HasLead() || l.Members[0].OtherAgent() != AgentGemini {
		t.Errorf("a Gemini-only team: %+v, %v", l, err)
	}
}

// TestAgentKindProblems: each mistake said where it is.
func TestAgentKindProblems(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"team: t\nagent: gpt\n", `t.yaml:2:8: agent: must be one of claude, codex, gemini`},
		{"team: t\nlead: {agent: codex}\n", "t.yaml:2:15: lead.agent: the lead is Claude Code"},
		{"team: t\nmembers:\n  - name: a\n    agent: codex\n    command: [x]\n", "t.yaml:4:5: members[0].agent: a member has agent: (an agent CLI teamctl runs) or command: (a plain process), not both"},
		{"team: t\nmembers:\n  - name: a\n    agent: codex\n    planModeRequired: true\n", "t.yaml:5:5: members[0].planModeRequired: only for Claude Code members, not with agent: codex"},
		{"team: t\nmembers:\n  - name: a\n    agent: gemini\n    permissions: {allow: [Bash]}\n", "t.yaml:5:5: members[0].permissions: only for Claude Code members, not with agent: gemini"},
		{"team: t\nagents:\n  claude: {command: x}\n", `t.yaml:3:3: agents: unknown key "claude"`},
		{"team: t\nagents:\n  codex: {command: \"\"}\n", "t.yaml:3:20: agents.codex.command: must not be empty"},
	} {
		lines := problemLines(t, c.src)
		if !strings.HasPrefix(strings.Join(lines, "\n"), c.want) {
			t.Errorf("%q:\n%s\nwant first %s", c.src, strings.Join(lines, "\n"), c.want)
		}
	}
}
