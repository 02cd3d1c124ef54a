package model_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestDependenciesPointOneWay: `go list -deps` of the cockpits and their view
// shows neither team nor tmux (they draw team/model's values and act through
// the verbs the command gives them), team does not reach clean, and clean
// does not reach relaunch.
func TestDependenciesPointOneWay(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	const m = "github.com/teamctl/teamctl/"
	for pkg, never := range map[string][]string{
		"cockpit":    {"team", "tmux"},
		"web":        {"team", "tmux"},
		"team/view":  {"team", "tmux"},
		"team/model": {"team", "tmux"},
		"team":       {"clean"},
		"clean":      {"relaunch"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		out, err := exec.CommandContext(ctx, "go", "list", "-deps", m+pkg).Output()
		cancel()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := map[string]bool{}
		for _, d := range strings.Fields(string(out)) {
			deps[d] = true
		}
		for _, n := range never {
			if deps[m+n] {
				t.Errorf("%s depends on %s", pkg, n)
			}
		}
	}
}
