// Package versionlist reads a tested-versions file (claudecode's, codexcli's,
// geminicli's, which .ci/run reads too): one version a line, oldest first,
// blank lines and # comments passed over.
package versionlist

import "strings"

// Parse is the versions text lists, in its order.
func Parse(text string) []string {
	var out []string
	for _, ln := range strings.Split(text, "\n") {
		if ln = strings.TrimSpace(ln); ln != "" && !strings.HasPrefix(ln, "#") {
			out = append(out, ln)
		}
	}
	return out
}
