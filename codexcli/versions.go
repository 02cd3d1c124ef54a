// Package codexcli is the only code that knows the Codex CLI's files, flags
// and output (as claudecode is for Claude Code); today, the versions teamctl
// is tested on and how `codex --version` names one.
package codexcli

import (
	_ "embed"
	"strings"

	"github.com/teamctl/teamctl/internal/versionlist"
)

//go:embed tested-versions.txt
var testedVersions string

// TestedVersions are the Codex CLI versions teamctl's tests ran on, oldest
// first (tested-versions.txt, which .ci/run reads too).
func TestedVersions() []string { return versionlist.Parse(testedVersions) }

// Version takes the version number out of `codex --version` output
// ("codex-cli 0.171.0"): its last word.
func Version(out string) string {
	f := strings.Fields(out)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}
