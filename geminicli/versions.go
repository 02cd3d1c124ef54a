// Package geminicli is the only code that knows the Gemini CLI's files,
// flags and output (as claudecode is for Claude Code); today, the versions
// teamctl is tested on and how `gemini --version` names one.
package geminicli

import (
	_ "embed"
	"strings"

	"github.com/teamctl/teamctl/internal/versionlist"
)

//go:embed tested-versions.txt
var testedVersions string

// TestedVersions are the Gemini CLI versions teamctl's tests ran on, oldest
// first (tested-versions.txt, which .ci/run reads too).
func TestedVersions() []string { return versionlist.Parse(testedVersions) }

// Version takes the version number out of `gemini --version` output
// ("0.61.0"): its first word.
func Version(out string) string {
	f := strings.Fields(out)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
