package main_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestDoctorUsesTheLayoutsClaudeCommand: `doctor LAYOUT` checks the Claude Code
// the layout launches (claude.command with claude.args, a relative one from
// the layout's root, as up resolves it), with no claude on PATH; TEAMCTL_CLAUDE
// still wins.
func TestDoctorUsesTheLayoutsClaudeCommand(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.Extra = append(e.Extra, "PATH=/usr/bin:/bin")
	claudeCheck := func(args ...string) (ok, warn bool, detail string) {
		t.Helper()
		r := e.Run(append([]string{"doctor", "--json"}, args...)...)
		var checks []struct {
			Name, Detail string
			OK, Warn     bool
		}
		if err := json.Unmarshal([]byte(r.Stdout), &checks); err != nil {
			t.Fatalf("doctor --json: %v\n%s%s", err, r.Stdout, r.Stderr)
		}
		for _, c := range checks {
			if c.Name == "claude" {
				return c.OK, c.Warn, c.Detail
			}
		}
		t.Fatalf("no claude check: %s", r.Stdout)
		return
	}
	if ok, _, detail := claudeCheck(); ok {
		t.Fatalf("doctor found a claude on PATH=/usr/bin:/bin (%s); the test needs none", detail)
	}
	// The stand-in layout of the tests: teamctl with args [stand-in].
	if ok, _, detail := claudeCheck(standInLayout(e, "standin.yaml", "team: doc\n")); !ok || !strings.Contains(detail, e.Bin) {
		t.Errorf("doctor of a stand-in layout: ok %v: %s", ok, detail)
	}
	// A relative claude.command, from the layout's root.
	fake := e.WriteExecutable("proj/tools/claude-wrapper", "#!/bin/sh\necho '2.1.328 (Claude Code)'\n")
	p := e.WriteFile("proj/team.yaml", "team: doc\nroot: .\nclaude:\n  command: ./tools/claude-wrapper\n")
	if ok, warn, detail := claudeCheck(p); !ok || warn || !strings.Contains(detail, fake) || !strings.Contains(detail, "2.1.328") {
		t.Errorf("doctor of a layout with a relative claude.command: ok %v warn %v: %s", ok, warn, detail)
	}
	e.Extra = append(e.Extra, "TEAMCTL_CLAUDE=no-such-claude-here")
	if ok, _, detail := claudeCheck(p); ok || !strings.Contains(detail, "no-such-claude-here") {
		t.Errorf("TEAMCTL_CLAUDE does not win over claude.command: ok %v: %s", ok, detail)
	}
}

// TestDoctorSaysWhetherClaudeCodeWasTested: doctor shows the installed Claude
// Code's version and whether teamctl's tests ran on it (the versions of
// claudecode/tested-versions.txt: the pinned one and the newer one alike);
// another version is a warning naming the tested ones.
func TestDoctorSaysWhetherClaudeCodeWasTested(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	check := func(version string) (ok, warn bool, detail string) {
		t.Helper()
		fake := e.WriteExecutable("bin-"+version+"/claude", "#!/bin/sh\necho '"+version+" (Claude Code)'\n")
		r := e.Run("doctor", "--json", e.WriteFile("team-"+version+".yaml", "team: doc\nclaude:\n  command: "+fake+"\n"))
		var checks []struct {
			Name, Detail string
			OK, Warn     bool
		}
		if err := json.Unmarshal([]byte(r.Stdout), &checks); err != nil {
			t.Fatalf("doctor --json: %v\n%s%s", err, r.Stdout, r.Stderr)
		}
		for _, c := range checks {
			if c.Name == "claude" {
				return c.OK, c.Warn, c.Detail
			}
		}
		t.Fatalf("no claude check: %s", r.Stdout)
		return
	}
	for _, v := range []string{"2.1.328", "2.1.332"} {
		if ok, warn, detail := check(v); !ok || warn || !strings.Contains(detail, v) || !strings.Contains(detail, "a version teamctl's tests ran on") {
			t.Errorf("Claude Code %s: ok %v warn %v: %s", v, ok, warn, detail)
		}
	}
	if ok, warn, detail := check("2.1.340"); !ok || !warn || !strings.Contains(detail, "2.1.340") || !strings.Contains(detail, "not a version teamctl's tests ran on (2.1.328, 2.1.332)") {
		t.Errorf("an untested Claude Code: ok %v warn %v: %s", ok, warn, detail)
	}
}
