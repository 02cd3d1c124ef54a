package cockpit

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team/model"
)

// heldSnap is a team whose lead its budget held, with what each member spent:
// the lead priced, a teammate on a model without a price.
func heldSnap() *Snapshot {
	return &Snapshot{Status: &model.Status{Team: "alpha", Supervisor: model.SupervisorStatus{Running: true, PID: 9}, Members: []model.MemberStatus{
		{Name: "lead", Role: "lead", Origin: "layout", Pane: "%0", State: "held", Since: t0.Add(-30 * time.Second),
			Reason: "budget: lead has spent its $5.00 budget: $5.10; interrupted",
			Usage:  &state.MemberUsage{Input: 1000, Output: 2000, Turns: 3, Cost: 5.1, Models: []string{"claude-sonnet-4-5"}}},
		{Name: "scout", Role: "teammate", Origin: "layout", Pane: "%1", State: "idle", Since: t0.Add(-time.Minute),
			Usage: &state.MemberUsage{Input: 1_200_000, Turns: 1, Models: []string{"claude-opus-5-5"}, NoPrice: []string{"claude-opus-5-5"}}},
	}}}
}

// TestHeldMemberAndCosts: top shows a member its budget held as held, with
// why, and what each member spent in COST ("no price" with the tokens,
// never a guess); R lets the held one go through resume-member's own
// function, and refuses one that is not held.
func TestHeldMemberAndCosts(t *testing.T) {
	f := &fake{}
	m := newModel(t, f, false)
	look(t, m, heldSnap())
	got := rows(m)
	want := []string{
		`^> lead +lead +held +30s +0 \$5\.10 +budget: lead has spent its \$5`,
		`^  scout +teammate +idle +1m +0 1\.20M tok, no price`,
	}
	if len(got) != len(want) {
		t.Fatalf("rows:\n%s", strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !regexp.MustCompile(w).MatchString(got[i]) {
			t.Errorf("row %d = %q, want %s", i, got[i], w)
		}
	}
	if v := view(m); !strings.Contains(v, "COST") || !strings.Contains(v, "R release") {
		t.Errorf("no COST column or no R key for the held lead:\n%s", v)
	}
	press(t, m, "j", "R") // scout: not held
	if v := view(m); !strings.Contains(v, "scout is idle, not held") {
		t.Errorf("R on a member not held:\n%s", v)
	}
	press(t, m, "k", "R")
	if acts := acts(f); !slices.Equal(acts, []string{"release alpha lead"}) {
		t.Errorf("actions %q", acts)
	}
	if v := view(m); !strings.Contains(v, "released lead (held for budget: lead has spent its $5.00 budget") {
		t.Errorf("no word of the release:\n%s", v)
	}
}
