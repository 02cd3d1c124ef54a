package worktrees

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestPairs: every side with every later one of its repository, once.
func TestPairs(t *testing.T) {
	sides := []Side{{"a", "/r", "1"}, {"b", "/r/", "2"}, {"x", "/other", "3"}, {"c", "/r", "4"}}
	var got []string
	for _, p := range Pairs(sides) {
		got = append(got, p[0].Name+p[1].Name)
	}
	if want := "ab ac bc"; strings.Join(got, " ") != want {
		t.Errorf("pairs %q, want %q", got, want)
	}
}

// TestRefFiles: the files that change when a member commits or checks out
// are its branch's loose ref and its worktree's HEAD; a folder git does not
// list, or a branch that could be an option, is refused.
func TestRefFiles(t *testing.T) {
	main := repo(t)
	c := ctx(t)
	wt := member(t, main, "a", nil)
	files, err := RefFiles(c, main, wt, "teamctl/t/a")
	if err != nil {
		t.Fatal(err)
	}
	head, ref := files[0], files[1]
	before, _ := os.ReadFile(ref)
	commitFiles(t, wt, "work", map[string]string{"a.go": "a\n"})
	if after, err := os.ReadFile(ref); err != nil || string(after) == string(before) {
		t.Errorf("a commit left %s as it was (%q, %v)", ref, after, err)
	}
	run(t, wt, "checkout", "-q", "--detach")
	if b, err := os.ReadFile(head); err != nil || strings.HasPrefix(string(b), "ref:") {
		t.Errorf("a checkout left %s on the branch (%q, %v)", head, b, err)
	}
	if _, err := RefFiles(c, main, t.TempDir(), "teamctl/t/a"); !errors.Is(err, ErrNotWorktree) {
		t.Errorf("a folder git does not list: %v", err)
	}
	if _, err := RefFiles(c, main, wt, "--output=x"); err == nil {
		t.Error("a branch like an option was taken")
	}
}
