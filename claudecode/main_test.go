package claudecode

import (
	"os"
	"testing"
)

// TestMain lets the test binary double as the helper processes of the mailbox
// tests: with helperRoleEnv set it plays that role instead of running the tests.
func TestMain(m *testing.M) {
	if role := os.Getenv(helperRoleEnv); role != "" {
		os.Exit(runHelper(role))
	}
	os.Exit(m.Run())
}
