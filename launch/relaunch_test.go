package launch

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
)

// relaunchLayout is a team of a lead, a teammate with a worktree and a plain
// process.
func relaunchLayout() *layouts.Layout {
	return &layouts.Layout{Team: "t", Path: "/w/team.yaml", Claude: layouts.Claude{Command: "claude"},
		Env:  []layouts.EnvVar{{Name: "A", Value: "team"}},
		Lead: layouts.Member{Name: "lead", Cwd: "/w", Prompt: "Lead."},
		Members: []layouts.Member{
			{Name: "mate", Cwd: "/w/svc", Color: "blue", Worktree: &layouts.Worktree{}},
			{Name: "web", Command: []string{"web", "--port", "1"}, Cwd: "/w"},
		}}
}

var relaunchProgs = Programs{Claude: "/bin/claude", Plain: map[string]string{"web": "/bin/web"}, Teamctl: "/bin/teamctl"}

// recorded is the state up records for l's plan: mate in its worktree.
func recorded(t *testing.T, l *layouts.Layout) *state.Team {
	t.Helper()
	wl := *l
	wl.Members = slices.Clone(l.Members)
	wl.Members[0].Cwd = "/wt/t/mate/svc"
	st := &state.Team{Team: "t", LeadSessionID: sid,
		Worktrees: []state.Worktree{{Member: "mate", Path: "/wt/t/mate"}}}
	for _, x := range mustPlan(t, &wl, relaunchProgs, sid) {
		st.Members = append(st.Members, state.Member{Name: x.Member.Name, Role: x.Role, Origin: state.OriginLayout,
			SessionID: x.SessionID, Cwd: x.Cwd, Argv: x.Argv, Env: x.Env, Digest: x.Digest})
	}
	return st
}

// TestRelaunchRunsTheLayoutNotTheRecord: what state.json says a member runs
// (its argv, its env: an LD_PRELOAD) is never what a relaunch runs; the
// layout's launch of it is, while it is the launch the member was started with.
func TestRelaunchRunsTheLayoutNotTheRecord(t *testing.T) {
	l := relaunchLayout()
	st := recorded(t, l)
	want := map[string]Launch{}
	for _, m := range st.Members {
		want[m.Name] = Launch{Argv: m.Argv, Env: m.Env, Cwd: m.Cwd}
	}
	for i := range st.Members {
		st.Members[i].Argv = []string{"/bin/sh", "-c", "touch /tmp/pwned"}
		st.Members[i].Env = []string{"LD_PRELOAD=/tmp/evil.so"}
	}
	for _, name := range []string{"lead", "mate", "web"} {
		x, err := Relaunch(l, relaunchProgs, st, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if w := want[name]; !slices.Equal(x.Argv, w.Argv) || !slices.Equal(x.Env, w.Env) || x.Cwd != w.Cwd {
			t.Errorf("%s relaunched as %q env %q in %s, want %q env %q in %s", name, x.Argv, x.Env, x.Cwd, w.Argv, w.Env, w.Cwd)
		}
	}
}

// TestRelaunchRefusesAChangedLaunch: a member whose launch in the layout is
// not the one it was started with (the layout edited, say its program) is not
// relaunched; the others still are.
func TestRelaunchRefusesAChangedLaunch(t *testing.T) {
	l := relaunchLayout()
	st := recorded(t, l)
	l.Members[1].Command = []string{"web", "--port", "2"}
	if _, err := Relaunch(l, relaunchProgs, st, "web"); !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "--recreate") {
		t.Errorf("web changed in the layout: %v, want ErrChanged saying --recreate", err)
	}
	progs := relaunchProgs
	progs.Claude = "/tmp/evil/claude"
	if _, err := Relaunch(l, progs, st, "lead"); !errors.Is(err, ErrChanged) {
		t.Errorf("another Claude Code program: %v, want ErrChanged", err)
	}
	if _, err := Relaunch(l, relaunchProgs, st, "lead"); err != nil {
		t.Errorf("the lead did not change: %v", err)
	}
	// A digest edited to the layout's is still the layout's launch.
	m, _ := st.Member("web")
	m.Digest = ""
	if _, err := Relaunch(l, relaunchProgs, st, "web"); !errors.Is(err, ErrChanged) {
		t.Errorf("no digest on record: %v, want ErrChanged", err)
	}
}

// TestRelaunchChecksWhatItTakesFromTheRecord: the lead's session, which goes
// into every Claude Code argv, must be a session id; a worktree member's
// folder must be inside its worktree.
func TestRelaunchChecksWhatItTakesFromTheRecord(t *testing.T) {
	l := relaunchLayout()
	st := recorded(t, l)
	st.LeadSessionID = "--dangerously-skip-permissions"
	if _, err := Relaunch(l, relaunchProgs, st, "lead"); err == nil || !strings.Contains(err.Error(), "lead_session_id") {
		t.Errorf("lead_session_id --dangerously-skip-permissions: %v, want an error naming the field", err)
	}
	st = recorded(t, l)
	m, _ := st.Member("mate")
	for _, cwd := range []string{"/home/u/evil", "/wt/t/other/svc", "/wt/t/mate/../../x", "relative/t/mate"} {
		m.Cwd = cwd
		if _, err := Relaunch(l, relaunchProgs, st, "mate"); err == nil {
			t.Errorf("mate's folder %s on record: relaunched", cwd)
		}
	}
}

// TestPlanRefusesAnInvalidLeadSession: a lead session that is not a UUID (one
// from an edited state.json) never reaches an argv.
func TestPlanRefusesAnInvalidLeadSession(t *testing.T) {
	for _, bad := range []string{"", "--dangerously-skip-permissions", "0123ABCD-0000-4000-8000-000000000000", sid + " x"} {
		if plan, err := Plan(relaunchLayout(), relaunchProgs, bad); err == nil {
			t.Errorf("Plan with lead session %q: %q", bad, plan[0].Argv)
		}
	}
}

// TestDigestOfTheJoinedForm: the session flags joined to their values digest
// as teamctl up to issue 21 gave them, two arguments each, so a member it
// recorded is not taken for a changed one.
func TestDigestOfTheJoinedForm(t *testing.T) {
	x := mustPlan(t, relaunchLayout(), relaunchProgs, sid)[1]
	var spacedArgv []string
	for _, a := range x.Argv {
		spacedArgv = append(spacedArgv, splitSessionFlag(a)...)
	}
	if len(spacedArgv) != len(x.Argv)+2 {
		t.Fatalf("argv %q: want --parent-session-id= and --session-id= joined", x.Argv)
	}
	old := finish(Launch{Argv: spacedArgv, Env: x.Env, Cwd: x.Cwd})
	now := finish(Launch{Argv: x.Argv, Env: x.Env, Cwd: x.Cwd})
	if old.Digest != now.Digest {
		t.Errorf("digest %s of %q differs from %s of %q", now.Digest, x.Argv, old.Digest, spacedArgv)
	}
}

// TestRuleFolderIsTheOneTeamctlPlaced: the folder a member's permission rules
// anchor at is the layout's (a record moved elsewhere is not taken), its
// folder inside its own worktree, the lead's for a teammate the lead spawned
// there, and none where teamctl cannot vouch for one.
func TestRuleFolderIsTheOneTeamctlPlaced(t *testing.T) {
	l := relaunchLayout()
	st := recorded(t, l)
	st.Members = append(st.Members,
		state.Member{Name: "scout", Role: state.RoleTeammate, Origin: state.OriginLead, Cwd: "/w/"},
		state.Member{Name: "stray", Role: state.RoleTeammate, Origin: state.OriginLead, Cwd: "/home/you"})
	edit := func(name, cwd string) *state.Team {
		c := *st
		c.Members = slices.Clone(st.Members)
		for i := range c.Members {
			if c.Members[i].Name == name {
				c.Members[i].Cwd = cwd
			}
		}
		return &c
	}
	for _, c := range []struct {
		name, member string
		st           *state.Team
		want         string
	}{
		{"the lead", "lead", st, "/w"},
		{"a process", "web", st, "/w"},
		{"a process whose record moved", "web", edit("web", "/home/you"), "/w"},
		{"a teammate in its worktree", "mate", st, "/wt/t/mate/svc"},
		{"a teammate moved out of its worktree", "mate", edit("mate", "/home/you"), ""},
		{"a teammate spawned in the lead's folder", "scout", st, "/w"},
		{"a teammate spawned elsewhere", "stray", st, ""},
		{"no such member", "nobody", st, ""},
	} {
		if got := RuleFolder(l, c.st, c.member); got != c.want {
			t.Errorf("%s: RuleFolder %q, want %q", c.name, got, c.want)
		}
	}
	other := *l
	other.Team = "other"
	if got := RuleFolder(&other, st, "lead"); got != "" {
		t.Errorf("another team's layout: %q", got)
	}
}
