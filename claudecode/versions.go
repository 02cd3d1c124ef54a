package claudecode

import (
	_ "embed"
	"strings"

	"github.com/teamctl/teamctl/internal/versionlist"
)

//go:embed tested-versions.txt
var testedVersions string

// TestedVersions are the Claude Code versions teamctl's tests ran on, oldest
// first (tested-versions.txt, which .ci/run reads too).
func TestedVersions() []string { return versionlist.Parse(testedVersions) }

// Version takes the version number out of `claude --version` output
// ("2.1.332 (Claude Code)"): its first word.
func Version(out string) string {
	f := strings.Fields(out)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// IsTestedVersion reports whether version (a number, as Version returns it)
// is one of TestedVersions.
func IsTestedVersion(version string) bool {
	for _, v := range TestedVersions() {
		if v == version {
			return true
		}
	}
	return false
}
