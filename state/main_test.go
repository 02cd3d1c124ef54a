package state

import (
	"os"
	"testing"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestMain runs the tests with their temp folders in memory (testenv.InMemory):
// they write the team's state files, atomically, many times each.
func TestMain(m *testing.M) { os.Exit(testenv.InMemory(m)) }
