package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/teamctl/teamctl/cockpit"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team"
	"github.com/teamctl/teamctl/web"
)

// orderFixture is two teams up whose members are in every state a cockpit
// orders by: waiting for a person (a stall and a request, the request the
// older, in the second team), failed, held, limited, idle, working, a plain
// process, exited.
func orderFixture(t0 time.Time) []*team.Status {
	code := 3
	return []*team.Status{
		{Team: "alpha", Members: []team.MemberStatus{
			{Name: "lead", Role: state.RoleLead, Pane: "%0", State: state.StateIdle, StartedAt: t0},
			{Name: "web", Role: state.RoleProcess, Pane: "%1", State: state.StateRunning, StartedAt: t0},
			{Name: "asker", Role: state.RoleTeammate, Pane: "%2", State: state.StateStalled, Stall: &team.Stall{Pattern: "yes-no", Line: "Overwrite? (y/n)", Since: t0.Add(2 * time.Minute)}},
			{Name: "limited", Role: state.RoleTeammate, Pane: "%3", State: state.StateLimited, Limit: &team.Limit{Since: t0}},
			{Name: "held", Role: state.RoleTeammate, Pane: "%4", State: state.StateHeld, Reason: "its budget of $2.00 is spent"},
		}},
		{Team: "beta", Members: []team.MemberStatus{
			{Name: "lead", Role: state.RoleLead, Pane: "%0", State: state.StateRunning, StartedAt: t0},
			{Name: "gone", Role: state.RoleTeammate, Pane: "%1", State: state.StateExited, ExitCode: &code},
			{Name: "crashed", Role: state.RoleTeammate, Pane: "%2", State: state.StateFailed, Reason: "restarted 5 times in 1m"},
			{Name: "fixer", Role: state.RoleTeammate, Origin: state.OriginLead, Pane: "%3", State: state.StateWaitingApproval,
				Request: &state.Request{ID: "perm-1", Tool: "Bash", Input: `{"command":"go test ./..."}`, Since: t0.Add(time.Minute)}},
		}},
	}
}

// TestBothCockpitsOrderAlike: `top` (its table, as drawn) and `serve` (the
// view its page receives) list the same teams' members in the same order,
// held, limited, failed and waiting members included.
func TestBothCockpitsOrderAlike(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t0 := time.Now().Add(-10 * time.Minute).UTC()
	teams := orderFixture(t0)

	top := topOrder(t, teams, t0.Add(3*time.Minute))
	page := pageOrder(t, teams)
	if len(top) != 9 || !slices.Equal(top, page) {
		t.Errorf("the cockpits order the members differently\n  top %q\nserve %q", top, page)
	}
	// And both as the one model has it (team/view's own test says why).
	want := []string{"beta/fixer", "alpha/asker", "alpha/held", "alpha/lead", "alpha/web", "alpha/limited", "beta/crashed", "beta/lead", "beta/gone"}
	if !slices.Equal(page, want) {
		t.Errorf("serve's order %q, want %q", page, want)
	}
}

// topOrder is the order of top's all-teams table, read off its screen.
func topOrder(t *testing.T, teams []*team.Status, now time.Time) []string {
	t.Helper()
	names := []string{}
	for _, s := range teams {
		names = append(names, s.Team)
	}
	m := cockpit.New(cockpit.Options{All: true, Teams: names, Backend: noBackend{}, Feed: noFeed{}, Now: func() time.Time { return now }})
	m.Init()
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for _, s := range teams {
		m.Update(cockpit.StatusMsg{Team: s.Team, Snap: &cockpit.Snapshot{Status: s, Taken: now}})
	}
	lines := strings.Split(m.View().Content, "\n")
	var got []string
	header := false
	for _, l := range lines {
		switch {
		case strings.Contains(l, "TEAM  MEMBER"):
			header = true
			continue
		case !header:
			continue
		case strings.HasPrefix(l, "──"):
			return got
		}
		f := strings.Fields(strings.TrimPrefix(l, ">"))
		if len(f) < 2 {
			t.Fatalf("top's row %q", l)
		}
		got = append(got, f[0]+"/"+f[1])
	}
	t.Fatalf("no table in top's screen:\n%s", strings.Join(lines, "\n"))
	return nil
}

// pageOrder is the order of the rows serve's page receives.
func pageOrder(t *testing.T, teams []*team.Status) []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	token, _, err := web.LoadToken(false, false)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := web.New(ctx, web.Options{Backend: fixedTeams(teams), Token: token})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/login?token="+token, nil))
	cookies := rec.Result().Cookies()
	if len(cookies) == 0 {
		t.Fatalf("no session: %d %s", rec.Code, rec.Body)
	}
	req := httptest.NewRequest("GET", "/api/view", nil)
	req.AddCookie(cookies[0])
	rec = httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /api/view: %d %s", rec.Code, rec.Body)
	}
	var v web.View
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range v.Rows {
		got = append(got, r.Team+"/"+r.Member)
	}
	return got
}

// noBackend and noFeed are top's actions and feed, never used here.
type (
	noBackend struct{ cockpit.Backend }
	noFeed    struct{}
)

func (noFeed) Follow([]string, bool) {}
func (noFeed) Focus(string, string)  {}

// fixedTeams is serve's backend of these teams, as they are.
type fixedTeams []*team.Status

func (f fixedTeams) Teams() ([]string, error) {
	var out []string
	for _, s := range f {
		out = append(out, s.Team)
	}
	return out, nil
}

func (f fixedTeams) Status(_ context.Context, name string) (*team.Status, error) {
	for _, s := range f {
		if s.Team == name {
			return s, nil
		}
	}
	return nil, context.Canceled
}

func (f fixedTeams) TailEvents(string, int64) (web.EventReader, error) { return noEvents{}, nil }

func (f fixedTeams) Watch(ctx context.Context, o state.WatchOptions) (*state.Watcher, error) {
	return serveBackend{}.Watch(ctx, o)
}

func (f fixedTeams) Screen(context.Context, string, string) (string, error) { return "", nil }

func (f fixedTeams) ScreenInColour(context.Context, string, string) (string, error) { return "", nil }

func (f fixedTeams) FollowScreen(ctx context.Context, _, _ string, _ func()) error {
	<-ctx.Done()
	return nil
}

func (f fixedTeams) As(team.By) web.Actor { return nil }

type noEvents struct{}

func (noEvents) Read(func(state.Event)) error { return nil }
