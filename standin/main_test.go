package standin

import (
	"os"
	"testing"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestMain removes the teamctl binary the tests built once they are done.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
