package main

import (
	"runtime/debug"
	"strings"
)

// versionString is -X main.version when set, else the module version from the
// binary's build info: v1.2.3 for `go install …@v1.2.3`, a pseudo-version
// when go build stamped one from git; for a local build, (devel) and what the
// build info says of its commit.
func versionString() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	return describeBuild(bi)
}

func describeBuild(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	if v != "(devel)" {
		return v
	}
	parts := []string{v}
	set := map[string]string{}
	for _, s := range bi.Settings {
		set[s.Key] = s.Value
	}
	if r := set["vcs.revision"]; r != "" {
		parts = append(parts, r[:min(12, len(r))])
	}
	if t := set["vcs.time"]; t != "" {
		parts = append(parts, t)
	}
	if set["vcs.modified"] == "true" {
		parts = append(parts, "dirty")
	}
	return strings.Join(parts, " ")
}
