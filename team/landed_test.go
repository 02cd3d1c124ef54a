package team

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/worktrees"
)

// TestConflictsAfterAMemberLands: a and b change the same line; a's work is
// merged into dev, their base. a is then out of every pair, said so, and the
// one conflict is counted once, named by the pair that meets it when b
// lands: b into dev. Before, it was both "a and b" and "b into dev".
func TestConflictsAfterAMemberLands(t *testing.T) {
	f := newFakeWorld(t)
	repo, wt := reviewTeam(t, f)
	writeT(t, wt("a"), "app.go", strings.Replace(tenLines, "5\n", "five by a\n", 1))
	gitT(t, wt("a"), "commit", "-q", "-am", "a's five")
	writeT(t, wt("b"), "app.go", strings.Replace(tenLines, "5\n", "five by b\n", 1))
	gitT(t, wt("b"), "commit", "-q", "-am", "b's five")

	count := func(c *Conflicts) (n int, names []string) {
		for _, p := range c.Pairs {
			for _, x := range p.Conflicts {
				n++
				names = append(names, p.Members[0]+" and "+p.Members[1]+": "+x.Path)
			}
		}
		for _, b := range c.Bases {
			for _, x := range b.Conflicts {
				n++
				names = append(names, b.Member+" into "+b.Base+": "+x.Path)
			}
		}
		return n, names
	}
	c, err := f.open("rev").Conflicts(f.ctx)
	var old *worktrees.OldGitError
	if errors.As(err, &old) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if n, names := count(c); n != 1 || names[0] != "a and b: app.go" {
		t.Errorf("before a lands: %d conflicts %q, want a and b's in app.go", n, names)
	}

	// a lands: merged into dev (a merge commit, as teamctl merge makes).
	dev := filepath.Join(f.dir, "dev")
	gitT(t, repo, "worktree", "add", "-q", dev, "dev")
	gitT(t, dev, "merge", "-q", "--no-ff", "-m", "merge a", "teamctl/rev/a")
	c, err = f.open("rev").Conflicts(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, names := count(c); n != 1 || names[0] != "b into dev: app.go" {
		t.Errorf("after a landed: %d conflicts %q, want one: b into dev, app.go", n, names)
	}
	for _, p := range c.Pairs {
		if slices.Contains(p.Members[:], "a") {
			t.Errorf("a, landed, is in a pair: %+v", p)
		}
	}
	if !slices.Contains(c.Skipped, Skipped{"a", "its work is all in dev already"}) {
		t.Errorf("a is not said to be out, its work all in dev: %+v", c.Skipped)
	}
	if !c.Found() || c.Failed() {
		t.Errorf("Found() = %v, Failed() = %v", c.Found(), c.Failed())
	}
}
