package worktrees

import (
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
