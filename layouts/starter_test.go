package layouts

import (
	"strings"
	"testing"
)

func TestTeamNameFrom(t *testing.T) {
	for in, want := range map[string]string{
		"app": "app", "My App": "my-app", "--x__y--": "x-y", "café": "caf", "": "team",
		"ÉÉÉ": "team", strings.Repeat("ab-", 20): "ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-ab-a",
		"Proj.2": "proj-2",
	} {
		got := TeamNameFrom(in)
		if got != want || !nameRE.MatchString(got) {
			t.Errorf("TeamNameFrom(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestStarterParses: every starter layout parses, with the lead, alice and
// bob, worktrees when asked, and the stand-in when asked.
func TestStarterParses(t *testing.T) {
	for _, s := range []StarterSpec{{Team: "app"}, {Team: "app", Worktrees: true}, {Team: "x", StandIn: "/opt/te am/teamctl", Worktrees: true}} {
		l, err := ParseBytes("teamctl.yaml", Starter(s))
		if err != nil {
			t.Fatalf("%+v: %v\n%s", s, err, Starter(s))
		}
		if l.Team != s.Team || !l.HasLead() || len(l.Members) != 2 || l.Members[0].Name != "alice" || l.Members[1].Name != "bob" {
			t.Errorf("%+v: %+v", s, l)
		}
		if (l.Members[0].Worktree != nil) != s.Worktrees {
			t.Errorf("%+v: alice's worktree %+v", s, l.Members[0].Worktree)
		}
		if s.StandIn != "" && (l.Claude.Command != s.StandIn || len(l.Claude.Args) != 1 || l.Claude.Args[0] != "stand-in") {
			t.Errorf("%+v: claude %+v", s, l.Claude)
		}
	}
}
