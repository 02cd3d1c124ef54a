package main_test

import (
	"strings"
	"testing"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestVersionFromBuildInfo: `teamctl version` and `teamctl --version` say the
// same, from the binary's build info, not a placeholder.
func TestVersionFromBuildInfo(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	v := e.MustRun("version").Stdout
	if !strings.HasPrefix(v, "teamctl ") || strings.Contains(v, "dev\n") || strings.TrimSpace(v) == "teamctl" {
		t.Errorf("teamctl version: %q", v)
	}
	if f := e.MustRun("--version").Stdout; f != v {
		t.Errorf("--version %q differs from version %q", f, v)
	}
}
