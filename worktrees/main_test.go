package worktrees

import (
	"fmt"
	"os"
	"testing"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestMain runs the tests in memory (testenv.InMemory: git writes many small
// files) and gives the whole package one HOME of its own (no global git config
// of the user's is read) and no system git config, set once for the process
// rather than by each test with t.Setenv, so that the tests, which spend their
// time waiting for git, can run in parallel.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "worktrees-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("HOME", home)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	code := testenv.InMemory(m)
	os.RemoveAll(home)
	os.Exit(code)
}
