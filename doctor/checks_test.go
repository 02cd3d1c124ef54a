package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFailed: only a check that is not OK fails the report; a warning does
// not.
func TestFailed(t *testing.T) {
	for _, c := range []struct {
		checks []Check
		want   bool
	}{
		{nil, false},
		{[]Check{{Name: "tmux", OK: true}, {Name: "trust lead", OK: true, Warn: true}}, false},
		{[]Check{{Name: "tmux", OK: true}, {Name: "claude"}}, true},
	} {
		if got := Failed(c.checks); got != c.want {
			t.Errorf("Failed(%+v) = %v, want %v", c.checks, got, c.want)
		}
	}
}

// TestChecksOfALayoutThatDoesNotParse: a layout file doctor cannot read is
// the error, before any check runs.
func TestChecksOfALayoutThatDoesNotParse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "team.yaml")
	if err := os.WriteFile(path, []byte("team: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	checks, err := Checks(context.Background(), "", "", path)
	if err == nil || checks != nil || !strings.Contains(err.Error(), "team.yaml") {
		t.Errorf("checks %v, error %v; want none, and an error naming the file", checks, err)
	}
}
