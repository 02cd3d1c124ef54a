package codexcli

import (
	"slices"
	"testing"
)

func TestVersions(t *testing.T) {
	if v := TestedVersions(); !slices.Contains(v, "0.171.0") {
		t.Errorf("tested versions %q", v)
	}
	// As 0.171.0 printed it.
	if v := Version("codex-cli 0.171.0\n"); v != "0.171.0" {
		t.Errorf("Version = %q", v)
	}
}
