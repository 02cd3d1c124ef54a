package view

import (
	"slices"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team/model"
)

var t0 = time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)

// fixture is two teams whose members are in every state a cockpit orders
// by: waiting (a stall and a request, the request older), failed, held,
// limited, idle, working, a plain process, exited.
func fixture() []*model.Status {
	code := 3
	return []*model.Status{
		{Team: "alpha", Members: []Member{
			{Name: "lead", Role: state.RoleLead, State: state.StateIdle, StartedAt: t0},
			{Name: "web", Role: state.RoleProcess, State: state.StateRunning, StartedAt: t0},
			{Name: "asker", Role: state.RoleTeammate, State: state.StateStalled, Stall: &model.Stall{Line: "Overwrite? (y/n)", Since: t0.Add(2 * time.Minute)}},
			{Name: "limited", Role: state.RoleTeammate, State: state.StateLimited, Limit: &model.Limit{Since: t0}},
			{Name: "held", Role: state.RoleTeammate, State: state.StateHeld, Reason: "its budget of $2.00 is spent"},
		}},
		{Team: "beta", Members: []Member{
			{Name: "lead", Role: state.RoleLead, State: state.StateRunning, StartedAt: t0},
			{Name: "gone", Role: state.RoleTeammate, State: state.StateExited, ExitCode: &code},
			{Name: "crashed", Role: state.RoleTeammate, State: state.StateFailed, Reason: "restarted 5 times in 1m"},
			{Name: "fixer", Role: state.RoleTeammate, Origin: state.OriginLead, State: state.StateWaitingApproval,
				Request: &state.Request{Tool: "Bash", Input: `{"command":"go test ./..."}`, Since: t0.Add(time.Minute)}},
		}},
	}
}

// TestRowsOrder: whoever waits for a person first, in whichever team, the
// longest waiting first; then team by team the failed and the held (a
// person must act for them to go on), then the rest in the layout's order —
// a limited member waits for its reset, not for a person.
func TestRowsOrder(t *testing.T) {
	var got []string
	for _, r := range Rows(fixture(), t0.Add(3*time.Minute)) {
		got = append(got, r.Team+"/"+r.Member)
	}
	// Team by team: alpha's held before alpha's rest, then beta's crashed before beta's rest.
	want := []string{"beta/fixer", "alpha/asker", "alpha/held", "alpha/lead", "alpha/web", "alpha/limited", "beta/crashed", "beta/lead", "beta/gone"}
	if !slices.Equal(got, want) {
		t.Errorf("order\n got %q\nwant %q", got, want)
	}
}

// TestRowsText: every text a cockpit shows is made here — the state and
// role words, how long, what it waits on, its cost.
func TestRowsText(t *testing.T) {
	now := t0.Add(3 * time.Minute)
	byName := map[string]Row{}
	for _, r := range Rows(fixture(), now) {
		byName[r.Team+"/"+r.Member] = r
	}
	for _, c := range []struct {
		who                                 string
		state, role, forText, waitsOn, cost string
		waits                               bool
	}{
		{"beta/fixer", "waiting-approval", "spawned", "2m", "Bash: go test ./...", "-", true},
		{"alpha/asker", "stalled", "teammate", "1m", `"Overwrite? (y/n)"`, "-", true},
		{"alpha/lead", "idle", "lead", "3m", "", "-", false},
		{"beta/lead", "working", "lead", "3m", "", "-", false},
		{"alpha/web", "running", "process", "3m", "", "-", false},
		{"alpha/held", "held", "teammate", "-", "its budget of $2.00 is spent", "-", false},
		{"beta/gone", "exited", "teammate", "-", "exit 3", "-", false},
	} {
		r := byName[c.who]
		if r.StateText != c.state || r.Role != c.role || r.For != c.forText || r.WaitsOn != c.waitsOn || r.Cost != c.cost || r.Waits != c.waits {
			t.Errorf("%s: %+v; want state %q role %q for %q waits on %q cost %q waits %v", c.who, r, c.state, c.role, c.forText, c.waitsOn, c.cost, c.waits)
		}
	}
}

// TestCost: a plain process has no cost; a member's is what status says.
func TestCost(t *testing.T) {
	for _, c := range []struct {
		m    Member
		want string
	}{
		{Member{Role: state.RoleProcess, Usage: &state.MemberUsage{Turns: 1, Cost: 9}}, "-"},
		{Member{Role: state.RoleTeammate}, "-"},
		{Member{Role: state.RoleTeammate, Usage: &state.MemberUsage{Turns: 2, Cost: 1.234, Models: []string{"m"}}}, "$1.23"},
		{Member{Role: state.RoleTeammate, Usage: &state.MemberUsage{Turns: 2, Cost: 1, Models: []string{"m", "x"}, NoPrice: []string{"x"}}}, "$1.00 + no price"},
	} {
		if got := Cost(c.m); got != c.want {
			t.Errorf("Cost(%+v) = %q, want %q", c.m, got, c.want)
		}
	}
}

// TestUp: up while not brought down and some member's program has not ended.
func TestUp(t *testing.T) {
	stopped := t0
	for _, c := range []struct {
		s    *model.Status
		want bool
	}{
		{nil, false},
		{&model.Status{Members: []Member{{State: state.StateIdle}}}, true},
		{&model.Status{Members: []Member{{State: state.StateExited}, {State: state.StateFailed}}}, false},
		{&model.Status{StoppedAt: &stopped, Members: []Member{{State: state.StateIdle}}}, false},
	} {
		if got := Up(c.s); got != c.want {
			t.Errorf("Up(%+v) = %v, want %v", c.s, got, c.want)
		}
	}
}

// TestRequestTarget: the command, file or address a request is about, from
// its input whole or cut short, else its description.
func TestRequestTarget(t *testing.T) {
	for _, c := range []struct{ input, desc, want string }{
		{`{"command":"go test"}`, "", "go test"},
		{`{"file_path":"/a/b.go","old":"x"}`, "", "/a/b.go"},
		{`{"command":"go test ./... -run Lo…`, "", "go test ./... -run Lo…"},
		{`{}`, "fetch the docs", "fetch the docs"},
		{`{"command":"ls -la","description":"List"}`, "List", "ls -la"},
		{`{"url":"https://example.com"}`, "", "https://example.com"},
		{`{"command":"echo \"a very long`, "", `echo "a very long…`},
		{"", "", ""},
	} {
		if got := RequestTarget("Bash", c.input, c.desc); got != c.want {
			t.Errorf("RequestTarget(%q) = %q, want %q", c.input, got, c.want)
		}
	}
}

// TestTeamCost: a team's cost is its members' together (a plain process's
// counted never), said as a member's is; the total is every team's.
func TestTeamCost(t *testing.T) {
	a := &model.Status{Team: "a", Members: []Member{
		{Role: state.RoleLead, Usage: &state.MemberUsage{Turns: 2, Cost: 1.5, Models: []string{"m"}}},
		{Role: state.RoleTeammate, Usage: &state.MemberUsage{Turns: 1, Cost: 0.25, Models: []string{"m"}}},
		{Role: state.RoleProcess, Usage: &state.MemberUsage{Turns: 1, Cost: 9, Models: []string{"m"}}},
		{Role: state.RoleTeammate},
	}}
	b := &model.Status{Team: "b", Members: []Member{
		{Role: state.RoleLead, Usage: &state.MemberUsage{Turns: 1, Cost: 1, Models: []string{"m", "x"}, NoPrice: []string{"x"}}},
	}}
	for _, c := range []struct{ got, want string }{
		{TeamCost(a), "$1.75"},
		{TeamCost(b), "$1.00 + no price"},
		{TeamCost(&model.Status{}), "-"},
		{TeamCost(nil), "-"},
		{TotalCost([]*model.Status{a, b}), "$2.75 + no price"},
		{TotalCost([]*model.Status{a}), "$1.75"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestRowsShowTheHost: a member on another host is listed with its host, in
// both cockpits (Row.Host, Shown).
func TestRowsShowTheHost(t *testing.T) {
	s := &model.Status{Team: "t", Members: []Member{{Name: "here", State: "running"}, {Name: "far", Host: "gpu1", State: "unknown"}}}
	rows := Rows([]*model.Status{s}, time.Now())
	got := map[string]string{}
	for _, r := range rows {
		got[r.Member] = r.Host
	}
	if got["far"] != "gpu1" || got["here"] != "" {
		t.Errorf("hosts %v", got)
	}
	if Shown(s.Members[1]) != "far@gpu1" || Shown(s.Members[0]) != "here" {
		t.Errorf("shown %q %q", Shown(s.Members[1]), Shown(s.Members[0]))
	}
}
