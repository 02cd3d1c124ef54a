package worktrees

import (
	"testing"
)

// TestWithReads: under WithReads, RecordOf reads every branch's teamctl
// records of a repository in one go and answers as it does alone (a branch
// name with dots and slashes, a branch with only a base, one with none),
// and List answers from its first read until a new WithReads.
func TestWithReads(t *testing.T) {
	t.Parallel()
	main := repo(t)
	c := ctx(t)
	run(t, main, "branch", "teamctl/t/a.b")
	run(t, main, "branch", "other")
	run(t, main, "config", "branch.teamctl/t/a.b.teamctl-created", "t/a.b")
	run(t, main, "config", "branch.teamctl/t/a.b.teamctl-base", "main")
	run(t, main, "config", "branch.other.teamctl-base", "release 2")
	cached := WithReads(c)
	for _, b := range []string{"teamctl/t/a.b", "other", "main"} {
		alone, err1 := RecordOf(c, main, b)
		got, err2 := RecordOf(cached, main, b)
		if err1 != nil || err2 != nil || got != alone {
			t.Errorf("%s: %+v %v under WithReads, %+v %v alone", b, got, err2, alone, err1)
		}
	}
	if r, _ := RecordOf(cached, main, "teamctl/t/a.b"); r.Owner != "t/a.b" || r.Base != "main" {
		t.Errorf("record %+v", r)
	}
	before, err := List(cached, main)
	if err != nil {
		t.Fatal(err)
	}
	member(t, main, "m", nil) // a worktree made after the first read
	if after, _ := List(cached, main); len(after) != len(before) {
		t.Errorf("List under the same WithReads read again: %d then %d", len(before), len(after))
	}
	if fresh, _ := List(WithReads(c), main); len(fresh) != len(before)+1 {
		t.Errorf("a new WithReads: %d worktrees, want %d", len(fresh), len(before)+1)
	}
}
