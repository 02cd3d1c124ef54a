package launch

import (
	"strings"
	"testing"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
)

// TestAgentLaunch: a Codex or Gemini member runs `teamctl agent KIND --`
// and then its CLI as its users start it, in its folder, with the team's
// env; it is watched as a process (no Claude Code session).
func TestAgentLaunch(t *testing.T) {
	l, err := layouts.ParseBytes("t.yaml", []byte(`team: mixed
env: {K: v}
agents: {codex: {args: [--x]}}
members:
  - {name: rev, agent: codex, permissionMode: plan, prompt: review}
  - {name: gem, agent: gemini, model: g-pro}
`))
	if err != nil {
		t.Fatal(err)
	}
	progs := Programs{Teamctl: "/bin/teamctl", Plain: map[string]string{"rev": "/opt/codex", "gem": "/opt/gemini"}}
	plan, err := Plan(l, progs, claudecode.NewSessionID())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"rev": "/bin/teamctl agent codex -- /opt/codex --x --cd " + l.Members[0].Cwd + " -a on-request -s read-only -- review",
		"gem": "/bin/teamctl agent gemini -- /opt/gemini --approval-mode default -m g-pro",
	}
	for _, x := range plan {
		if got := strings.Join(x.Argv, " "); got != want[x.Member.Name] || x.Role != state.RoleProcess || x.SessionID != "" {
			t.Errorf("%s: %s (%s)\nwant %s", x.Member.Name, got, x.Role, want[x.Member.Name])
		}
		if strings.Join(x.Env, " ") != "K=v TEAMCTL_TEAM=mixed TEAMCTL_MEMBER="+x.Member.Name {
			t.Errorf("%s's env %q", x.Member.Name, x.Env)
		}
		if strings.Join(x.ArgvFor(false), " ") != want[x.Member.Name] {
			t.Errorf("%s not resumed: %q", x.Member.Name, x.ArgvFor(false))
		}
	}
	// Resumed: its CLI's own way, the options kept, no first prompt.
	resumed := map[string]string{
		"rev": "/bin/teamctl agent codex -- /opt/codex --x resume --last --cd " + l.Members[0].Cwd + " -a on-request -s read-only",
		"gem": "/bin/teamctl agent gemini -- /opt/gemini --approval-mode default -m g-pro --resume latest",
	}
	for _, x := range plan {
		if got := strings.Join(x.ArgvFor(true), " "); got != resumed[x.Member.Name] {
			t.Errorf("%s resumed: %s\nwant %s", x.Member.Name, got, resumed[x.Member.Name])
		}
	}
	if _, err := Plan(l, Programs{Plain: progs.Plain}, claudecode.NewSessionID()); err == nil || !strings.Contains(err.Error(), "teamctl's own path is not known") {
		t.Errorf("without teamctl's path: %v", err)
	}
}
