package launch

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/layouts"
)

const sid = "0123abcd-0000-4000-8000-000000000000"

func TestPlanArgvAndEnv(t *testing.T) {
	l := &layouts.Layout{
		Team:   "auth-fix",
		Claude: layouts.Claude{Command: "claude", Args: []string{"--verbose"}},
		Env:    []layouts.EnvVar{{Name: "A", Value: "team"}, {Name: "B", Value: "team"}},
		Lead: layouts.Member{Name: "lead", Model: "opus", PermissionMode: "manual", TeammateMode: "tmux",
			Prompt: "-starts with a dash", Args: []string{"--debug"}, Cwd: "/w", Env: []layouts.EnvVar{{Name: "B", Value: "lead"}}},
		Members: []layouts.Member{
			{Name: "researcher", AgentType: "general-purpose", Model: "sonnet", Color: "blue", PlanModeRequired: true,
				PermissionMode: "acceptEdits", Cwd: "/w/svc", Prompt: "ignored in argv", Args: []string{"--x"}},
			{Name: "plain", Color: "green", Cwd: "/w"},
			{Name: "dev", Command: []string{"npm", "run", "dev"}, Cwd: "/w", Env: []layouts.EnvVar{{Name: "A", Value: "dev"}}},
		},
	}
	progs := Programs{Claude: "/bin/claude", Plain: map[string]string{"dev": "/usr/bin/npm"}}
	plan := mustPlan(t, l, progs, sid)
	team := "session-0123abcd"
	researcher, plain := claudecode.TeammateSessionID(sid, "researcher"), claudecode.TeammateSessionID(sid, "plain")
	for _, c := range []struct {
		name string
		role string
		argv []string
		env  []string
	}{
		{"lead", "lead",
			[]string{"/bin/claude", "--verbose", "--session-id=" + sid, "--teammate-mode", "tmux", "--model", "opus", "--permission-mode", "manual", "--debug", "--", "-starts with a dash"},
			[]string{"A=team", "B=lead", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1", "TEAMCTL_TEAM=auth-fix", "TEAMCTL_MEMBER=lead"}},
		{"researcher", "teammate",
			[]string{"/bin/claude", "--verbose", "--agent-id", "researcher@" + team, "--agent-name", "researcher", "--team-name", team, "--agent-color", "blue",
				"--parent-session-id=" + sid, "--session-id=" + researcher, "--plan-mode-required", "--agent-type", "general-purpose", "--model", "sonnet", "--permission-mode", "acceptEdits", "--x"},
			[]string{"A=team", "B=team", "CLAUDECODE=1", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1", "TEAMCTL_TEAM=auth-fix", "TEAMCTL_MEMBER=researcher"}},
		{"plain", "teammate",
			[]string{"/bin/claude", "--verbose", "--agent-id", "plain@" + team, "--agent-name", "plain", "--team-name", team, "--agent-color", "green", "--parent-session-id=" + sid, "--session-id=" + plain},
			[]string{"A=team", "B=team", "CLAUDECODE=1", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1", "TEAMCTL_TEAM=auth-fix", "TEAMCTL_MEMBER=plain"}},
		{"dev", "process",
			[]string{"/usr/bin/npm", "run", "dev"},
			[]string{"A=dev", "B=team", "TEAMCTL_TEAM=auth-fix", "TEAMCTL_MEMBER=dev"}},
	} {
		var x *Launch
		for i := range plan {
			if plan[i].Member.Name == c.name {
				x = &plan[i]
			}
		}
		if x == nil {
			t.Fatalf("no launch for %s", c.name)
		}
		if string(x.Role) != c.role || !reflect.DeepEqual(x.Argv, c.argv) || !reflect.DeepEqual(x.Env, c.env) {
			t.Errorf("%s:\n role %s\n argv %q\n want %q\n env  %q\n want %q", c.name, x.Role, x.Argv, c.argv, x.Env, c.env)
		}
	}
	if plan[0].SessionID != sid || plan[1].SessionID != researcher || plan[3].SessionID != "" {
		t.Errorf("session ids: %q %q %q", plan[0].SessionID, plan[1].SessionID, plan[3].SessionID)
	}
}

// TestPlanKeepsATeammateOfAnOlderTeamctl: a teammate recorded without a
// session of its own (teamctl before issue 12) is the same launch but for the
// --session-id pair, which its NoSessionDigest leaves out.
func TestPlanKeepsATeammateOfAnOlderTeamctl(t *testing.T) {
	l := &layouts.Layout{Team: "t", Claude: layouts.Claude{Command: "claude"},
		Lead: layouts.Member{Name: "lead", Cwd: "/w"}, Members: []layouts.Member{{Name: "r", Cwd: "/w", Color: "blue"}}}
	x := mustPlan(t, l, Programs{Claude: "/bin/claude"}, sid)[1]
	old := finish(Launch{Cwd: x.Cwd, Env: x.Env, Argv: slices.Concat(x.Argv[:10], x.Argv[11:])})
	if !strings.HasPrefix(x.Argv[10], "--session-id=") || old.Digest == x.Digest || old.Digest != x.NoSessionDigest {
		t.Errorf("argv %q: digest without the session %s, NoSessionDigest %s", x.Argv, old.Digest, x.NoSessionDigest)
	}
}

func TestPlanDigestTellsAChangedMember(t *testing.T) {
	base := func() *layouts.Layout {
		return &layouts.Layout{Team: "t", Claude: layouts.Claude{Command: "claude"},
			Lead:    layouts.Member{Name: "lead", Cwd: "/w"},
			Members: []layouts.Member{{Name: "a", Cwd: "/w"}, {Name: "b", Cwd: "/w"}}}
	}
	progs := Programs{Claude: "/bin/claude"}
	before := mustPlan(t, base(), progs, sid)
	l := base()
	l.Members[0].Model = "haiku"
	after := mustPlan(t, l, progs, sid)
	if before[1].Digest == after[1].Digest {
		t.Error("changing a's model did not change its digest")
	}
	if before[0].Digest != after[0].Digest || before[2].Digest != after[2].Digest {
		t.Error("changing a changed another member's digest")
	}
	if again := mustPlan(t, base(), progs, sid); again[1].Digest != before[1].Digest {
		t.Error("digest not stable")
	}
}

func mustPlan(t *testing.T, l *layouts.Layout, progs Programs, leadSession string) []Launch {
	t.Helper()
	plan, err := Plan(l, progs, leadSession)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func TestDedupeEnvLastWinsInFirstPlace(t *testing.T) {
	got := dedupeEnv([]string{"A=1", "B=2", "A=3", "C=x=y"})
	if want := []string{"A=3", "B=2", "C=x=y"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q want %q", got, want)
	}
}

// TestPlanDigestLeavesOutTeamctlsPath: another path of teamctl (a new go run
// build, a reinstall) is in the hooks but changes no digest; the old digest,
// with the path inside, is kept for members recorded by an older teamctl.
func TestPlanDigestLeavesOutTeamctlsPath(t *testing.T) {
	l := &layouts.Layout{Team: "t", Claude: layouts.Claude{Command: "claude"},
		Lead:    layouts.Member{Name: "lead", Cwd: "/w"},
		Members: []layouts.Member{{Name: "a", Cwd: "/w"}, {Name: "dev", Command: []string{"npm"}, Cwd: "/w"}}}
	one := mustPlan(t, l, Programs{Claude: "/bin/claude", Plain: map[string]string{"dev": "/usr/bin/npm"}, Teamctl: "/tmp/go-build1/b001/exe/teamctl"}, sid)
	two := mustPlan(t, l, Programs{Claude: "/bin/claude", Plain: map[string]string{"dev": "/usr/bin/npm"}, Teamctl: "/home/u/go/bin/teamctl"}, sid)
	for i := range one {
		if one[i].Digest != two[i].Digest {
			t.Errorf("%s: teamctl's path changed the digest", one[i].Member.Name)
		}
	}
	if !strings.Contains(strings.Join(two[0].Argv, " "), "'/home/u/go/bin/teamctl' hook") {
		t.Errorf("the hooks do not call the teamctl given: %q", two[0].Argv)
	}
	if one[0].OldDigest == two[0].OldDigest || one[0].OldDigest == one[0].Digest {
		t.Errorf("old digests %s %s, digest %s: want the old ones with the path inside", one[0].OldDigest, two[0].OldDigest, one[0].Digest)
	}
	if one[2].OldDigest != one[2].Digest {
		t.Errorf("a process member, without hooks, has two digests")
	}
}

// TestClaudeConfigDir: the lead's CLAUDE_CONFIG_DIR (its env over the
// team's over teamctl's own), else its HOME's .claude, likewise.
func TestClaudeConfigDir(t *testing.T) {
	env := map[string]string{"HOME": "/home/u"}
	getenv := func(name string) string { return env[name] }
	l := &layouts.Layout{Team: "t"}
	check := func(want string) {
		t.Helper()
		if got := ClaudeConfigDir(l, getenv); got != want {
			t.Errorf("ClaudeConfigDir = %q, want %q", got, want)
		}
	}
	check("/home/u/.claude")
	l.Env = []layouts.EnvVar{{Name: "HOME", Value: "/home/team"}}
	check("/home/team/.claude")
	env["CLAUDE_CONFIG_DIR"] = "/cfg/own"
	check("/cfg/own")
	l.Env = append(l.Env, layouts.EnvVar{Name: "CLAUDE_CONFIG_DIR", Value: "/cfg/team"})
	check("/cfg/team")
	l.Lead.Env = []layouts.EnvVar{{Name: "CLAUDE_CONFIG_DIR", Value: "/cfg/lead"}}
	check("/cfg/lead")
}
