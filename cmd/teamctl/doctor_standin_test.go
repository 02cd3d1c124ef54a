package main_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestDoctorKnowsTheStandIn: doctor of a layout whose members run teamctl's
// stand-in says so, without the warning an untested Claude Code gets; of a
// team of plain processes, that it needs no Claude Code at all (with none on
// PATH).
func TestDoctorKnowsTheStandIn(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.Extra = append(e.Extra, "PATH=/usr/bin:/bin")
	claudeCheck := func(layout string) (ok, warn bool, detail string) {
		t.Helper()
		r := e.Run("doctor", "--json", layout)
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
	ok, warn, detail := claudeCheck(standInLayout(e, "standin.yaml", "team: doc\n"))
	if !ok || warn || !strings.Contains(detail, "teamctl's stand-in for Claude Code ("+e.Bin+" stand-in)") || strings.Contains(detail, "not a version") {
		t.Errorf("doctor of a stand-in layout: ok %v warn %v: %s", ok, warn, detail)
	}
	ok, warn, detail = claudeCheck(e.WriteFile("procs.yaml", "team: procs\nmembers:\n  - {name: web, command: [sleep, \"1\"]}\n"))
	if !ok || warn || !strings.Contains(detail, "not needed: the layout is a team of plain processes") {
		t.Errorf("doctor of a team of plain processes: ok %v warn %v: %s", ok, warn, detail)
	}
}
