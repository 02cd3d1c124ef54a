package supervisor

import (
	"os"
	"testing"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestMain runs the tests with their temp folders in memory (testenv.InMemory):
// the decision tests write the team's state files many times each.
func TestMain(m *testing.M) { os.Exit(testenv.InMemory(m)) }
