// Package geminicli is the only code that knows the Gemini CLI's files,
// flags and output (as claudecode is for Claude Code); today, the versions
// teamctl is tested on and how `gemini --version` names one.
package geminicli

import (
	_ "embed"
	"strings"
)

//go:embed tested-versions.txt
var testedVersions string

// TestedVersions are the Gemini CLI versions teamctl's tests ran on, oldest
// first (tested-versions.txt, which .ci/run reads too).
func TestedVersions() []string {
	var out []string
	for _, ln := range strings.Split(testedVersions, "\n") {
		if ln = strings.TrimSpace(ln); ln != "" && !strings.HasPrefix(ln, "#") {
			out = append(out, ln)
		}
	}
	return out
}

// Version takes the version number out of `gemini --version` output
// ("0.61.0"): its first word.
func Version(out string) string {
	f := strings.Fields(out)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
