package clean

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
)

// stoppedTeams gives each of names a state.json of a team that is down, which
// clean plans to remove.
func stoppedTeams(t *testing.T, names ...string) {
	t.Helper()
	stopped := time.Now()
	for _, n := range names {
		if err := state.Save(&state.Team{Team: n, Socket: state.SocketName(n), SocketPath: state.SocketPath(n), Session: n, StoppedAt: &stopped}); err != nil {
			t.Fatal(err)
		}
	}
}

// stateLeft is which of names still have a state folder.
func stateLeft(t *testing.T, names ...string) []string {
	t.Helper()
	var left []string
	for _, n := range names {
		dir, err := state.Dir(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(dir); err == nil {
			left = append(left, n)
		}
	}
	return left
}

// TestRunAsksBeforeCleaningEveryTeam: without a team named, Run shows the
// plan, then asks about the teams it would clean, in plan order, and a no
// leaves everything; a team named, a dry run, no one to ask (nil: --yes) or
// nothing to do asks nothing.
func TestRunAsksBeforeCleaningEveryTeam(t *testing.T) {
	ctx := world(t)
	teams := []string{"a-team", "b-team"}
	stoppedTeams(t, teams...)
	no := errors.New("no")
	var asked [][]string
	ask := func(answer error) func(context.Context, []string) error {
		return func(_ context.Context, ts []string) error {
			asked = append(asked, ts)
			return answer
		}
	}
	shown := 0
	show := func(r *Report) {
		shown++
		if len(r.Actions) == 0 || r.Actions[0].Result != Planned {
			t.Errorf("shown %+v, not the plan", r.Actions)
		}
	}

	if r, err := Run(ctx, Options{}, show, ask(no)); err != no || r != nil {
		t.Errorf("a no: report %v, error %v", r, err)
	}
	if shown != 1 || len(asked) != 1 || !slices.Equal(asked[0], teams) || !slices.Equal(stateLeft(t, teams...), teams) {
		t.Fatalf("a no: shown %d times, asked %q, left %q", shown, asked, stateLeft(t, teams...))
	}

	asked = nil
	r, err := Run(ctx, Options{DryRun: true}, nil, ask(no))
	if err != nil || !r.DryRun || len(r.Actions) != 2 || len(asked) != 0 || !slices.Equal(stateLeft(t, teams...), teams) {
		t.Fatalf("a dry run: %+v, %v; asked %q, left %q", r, err, asked, stateLeft(t, teams...))
	}

	r, err = Run(ctx, Options{Team: "a-team"}, nil, ask(no))
	if err != nil || len(r.Actions) != 1 || r.Actions[0].Result != Done || len(asked) != 0 || !slices.Equal(stateLeft(t, teams...), teams[1:]) {
		t.Fatalf("a team named: %+v, %v; asked %q, left %q", r.Actions, err, asked, stateLeft(t, teams...))
	}

	stoppedTeams(t, "a-team")
	r, err = Run(ctx, Options{}, nil, ask(nil))
	if err != nil || len(r.Actions) != 2 || len(asked) != 1 || !slices.Equal(asked[0], teams) || len(stateLeft(t, teams...)) != 0 {
		t.Fatalf("a yes: %+v, %v; asked %q, left %q", r.Actions, err, asked, stateLeft(t, teams...))
	}

	stoppedTeams(t, teams...)
	asked = nil
	if r, err = Run(ctx, Options{}, nil, nil); err != nil || len(r.Actions) != 2 || len(stateLeft(t, teams...)) != 0 {
		t.Fatalf("not asked (--yes): %+v, %v; left %q", r.Actions, err, stateLeft(t, teams...))
	}
	if r, err = Run(ctx, Options{}, nil, ask(no)); err != nil || len(r.Actions) != 0 || len(asked) != 0 {
		t.Fatalf("nothing to do: %+v, %v; asked %q", r.Actions, err, asked)
	}
}

// TestPlanTeams: the teams asked about are those with something planned, in
// plan order, each once; what is refused or kept already is not asked about.
func TestPlanTeams(t *testing.T) {
	r := &Report{Actions: []*Action{
		{Team: "c", Result: Refused}, {Team: "b", Result: Planned}, {Team: "a", Result: Kept},
		{Team: "c", Result: Planned}, {Team: "b", Result: Planned},
	}}
	if got := planTeams(r); !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("planTeams: %q", got)
	}
}

// TestSummaryAndIncomplete: the report's line counts what was done, refused,
// kept and failed (a dry run: what it would do) and the branches kept with
// work; something refused or failed makes it incomplete.
func TestSummaryAndIncomplete(t *testing.T) {
	acts := func(results ...string) []*Action {
		var out []*Action
		for _, res := range results {
			out = append(out, &Action{Result: res})
		}
		return out
	}
	for _, c := range []struct {
		r          *Report
		want       string
		incomplete bool
	}{
		{&Report{Actions: acts(Done, Done, Kept)}, "2 done, 0 refused, 1 kept, 0 failed", false},
		{&Report{Actions: acts(Done, Refused, KeptBranch, KeptBranch)}, "1 done, 1 refused, 0 kept, 0 failed; 2 branch(es) with work kept", true},
		{&Report{Actions: acts(Done, Failed)}, "1 done, 0 refused, 0 kept, 1 failed", true},
		{&Report{DryRun: true, Actions: acts(Planned, Planned, Kept)}, "dry run, nothing changed: 2 to do, 0 refused, 1 kept", false},
		{&Report{DryRun: true, Actions: acts(Planned, Refused)}, "dry run, nothing changed: 1 to do, 1 refused, 0 kept", true},
	} {
		if got := c.r.Summary(); got != c.want {
			t.Errorf("Summary: %q, want %q", got, c.want)
		}
		if got := c.r.Incomplete(); got != c.incomplete {
			t.Errorf("%q: Incomplete %v, want %v", c.want, got, c.incomplete)
		}
	}
}
