package worktrees

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestPairs: every side with every later one of its repository, once.
func TestPairs(t *testing.T) {
	t.Parallel()
	sides := []Side{{Name: "a", Main: "/r", Head: "1"}, {Name: "b", Main: "/r/", Head: "2"}, {Name: "x", Main: "/other", Head: "3"}, {Name: "c", Main: "/r", Head: "4"}}
	var got []string
	for _, p := range Pairs(sides) {
		got = append(got, sides[p[0]].Name+sides[p[1]].Name)
	}
	if want := "ab ac bc"; strings.Join(got, " ") != want {
		t.Errorf("pairs %q, want %q", got, want)
	}
}

// TestRefFiles: the files that change when a member commits or checks out
// are its branch's loose ref and its worktree's HEAD; a folder git does not
// list, or a branch that could be an option, is refused.
func TestRefFiles(t *testing.T) {
	t.Parallel()
	main := repo(t)
	c := ctx(t)
	wt := member(t, main, "a", nil)
	files, err := RefFiles(c, main, wt, "teamctl/t/a", "main")
	if err != nil {
		t.Fatal(err)
	}
	head, ref, packed, base := files[0], files[1], files[2], files[3]
	before, _ := os.ReadFile(base)
	commitFiles(t, main, "a person's commit on main", map[string]string{"m.go": "m\n"})
	if after, err := os.ReadFile(base); err != nil || string(after) == string(before) {
		t.Errorf("a commit on main left %s as it was (%q, %v)", base, after, err)
	}
	run(t, main, "pack-refs", "--all")
	if _, err := os.Stat(packed); err != nil {
		t.Errorf("pack-refs wrote no %s: %v", packed, err)
	}
	before, _ = os.ReadFile(ref)
	commitFiles(t, wt, "work", map[string]string{"a.go": "a\n"})
	if after, err := os.ReadFile(ref); err != nil || string(after) == string(before) {
		t.Errorf("a commit left %s as it was (%q, %v)", ref, after, err)
	}
	run(t, wt, "checkout", "-q", "--detach")
	if b, err := os.ReadFile(head); err != nil || strings.HasPrefix(string(b), "ref:") {
		t.Errorf("a checkout left %s on the branch (%q, %v)", head, b, err)
	}
	if _, err := RefFiles(c, main, t.TempDir(), "teamctl/t/a", ""); !errors.Is(err, ErrNotWorktree) {
		t.Errorf("a folder git does not list: %v", err)
	}
	if _, err := RefFiles(c, main, wt, "--output=x", ""); err == nil {
		t.Error("a branch like an option was taken")
	}
}
