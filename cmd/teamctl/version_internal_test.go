package main

import (
	"bytes"
	"context"
	"runtime/debug"
	"testing"
)

func TestDescribeBuild(t *testing.T) {
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d"},
		{Key: "vcs.time", Value: "2026-11-30T12:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	for _, c := range []struct {
		main     string
		settings []debug.BuildSetting
		want     string
	}{
		{"v1.2.3", nil, "v1.2.3"},
		{"v0.0.0-20261130120000-1a2b3c4d5e6f+dirty", vcs, "v0.0.0-20261130120000-1a2b3c4d5e6f+dirty"},
		{"(devel)", vcs, "(devel) 1a2b3c4d5e6f 2026-11-30T12:00:00Z dirty"},
		{"(devel)", vcs[:3], "(devel) 1a2b3c4d5e6f 2026-11-30T12:00:00Z"},
		{"(devel)", nil, "(devel)"},
		{"", nil, "(devel)"},
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Version: c.main}, Settings: c.settings}
		if got := describeBuild(bi); got != c.want {
			t.Errorf("describeBuild(%q, %d settings) = %q, want %q", c.main, len(c.settings), got, c.want)
		}
	}
}

// TestLdflagsVersionWins: -ldflags "-X main.version=…" still names the version.
func TestLdflagsVersionWins(t *testing.T) {
	old := version
	defer func() { version = old }()
	version = "v9.9.9-release"
	if got := versionString(); got != "v9.9.9-release" {
		t.Errorf("versionString() = %q with main.version set", got)
	}
}

// TestNewCmdVersion: version takes no arguments, and nothing is done but
// the run function.
func TestNewCmdVersion(t *testing.T) {
	ran := 0
	ios, _, _ := bufIO("")
	cmd := newVersionCmd(ios, func(context.Context, *versionOptions) error { ran++; return nil })
	cmd.SetArgs(nil)
	if err := cmd.Execute(); err != nil || ran != 1 {
		t.Fatalf("%v, ran %d", err, ran)
	}
	cmd.SetArgs([]string{"extra"})
	cmd.SetOut(new(bytes.Buffer))
	cmd.SetErr(new(bytes.Buffer))
	if err := cmd.Execute(); err == nil || ran != 1 {
		t.Errorf("version with an argument: %v, ran %d", err, ran)
	}
}

// TestVersionRun: one line, as --version prints it.
func TestVersionRun(t *testing.T) {
	ios, out, _ := bufIO("")
	if err := versionRun(context.Background(), &versionOptions{IO: ios, Version: func() string { return "v1.2.3" }}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "teamctl v1.2.3\n" {
		t.Errorf("printed %q", out.String())
	}
}
