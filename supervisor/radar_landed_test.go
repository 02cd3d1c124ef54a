package supervisor

import (
	"context"
	"os/exec"
	"testing"
)

// TestRadarLandedMemberIsInNoPair: alice and bob change the same line;
// alice's work is merged into main, their base. The radar then has no
// conflict between alice and bob (alice is out of every pair: top's mark
// on it goes), and one between bob and main: the same conflict, named by
// the pair that meets it when bob lands.
func TestRadarLandedMemberIsInNoPair(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ctx := context.Background()
	main, run, wts := twoMembersOnOneLine(t, "calc.py", true)
	r := newRadar(realGit{})
	conflicts := func(res radarResult) map[string]int {
		out := map[string]int{}
		for _, m := range res.merged {
			if m.err != nil {
				t.Fatalf("%s and %s: %v", m.a, m.b, m.err)
			}
			out[m.a+" "+m.b] = len(m.merge.Conflicts)
		}
		return out
	}
	res := r.pass(ctx, radarJob{worktrees: wts, dirty: map[string]bool{"alice": true, "bob": true}})
	if got := conflicts(res); got["alice bob"] != 1 || got["alice main"] != 0 || got["bob main"] != 0 {
		t.Fatalf("before alice lands: %v", got)
	}

	run(main, "merge", "-q", "--no-ff", "-m", "merge alice", "teamctl/t/alice")
	// The radar's seen pairs, as the daemon keeps them: unchanged work is
	// not compared again unless its base moved.
	seen := map[string][2]string{}
	for _, m := range res.merged {
		key := pairKey(m.a, m.b)
		if m.base {
			key = baseKey(m.a)
		}
		seen[key] = m.keys
	}
	res = r.pass(ctx, radarJob{worktrees: wts, works: res.works, seen: seen})
	got := conflicts(res)
	if got["alice bob"] != 0 || got["alice main"] != 0 || got["bob main"] != 1 {
		t.Errorf("after alice landed: %v, want bob and main's conflict alone", got)
	}
	if _, ok := got["alice bob"]; !ok {
		t.Errorf("alice and bob were not compared again once main moved: %v", got)
	}
}
