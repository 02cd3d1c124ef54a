package layouts

import (
	"strings"
	"testing"
)

// TestProcessTeam checks that a layout of plain command: members and no
// lead: is a team of processes, with no lead implied, and that a Claude Code
// member still implies one.
func TestProcessTeam(t *testing.T) {
	l := mustParse(t, `team: t
members:
  - name: web
    command: [python3, -m, http.server]
  - name: worker
    command: [sleep, "100"]
`)
	if l.HasLead() {
		t.Errorf("a team of plain processes has a lead %+v", l.Lead)
	}
	var names []string
	for _, m := range l.All() {
		names = append(names, m.Name)
	}
	if got := strings.Join(names, " "); got != "web worker" {
		t.Errorf("All() = %q, want the processes only", got)
	}
	// A member may take the name "lead" in a team without one.
	if _, err := ParseBytes("t.yaml", []byte("team: t\nmembers:\n  - {name: lead, command: [x]}\n")); err != nil {
		t.Errorf("a process named lead in a team of processes: %v", err)
	}

	mixed := mustParse(t, "team: t\nmembers:\n  - name: a\n  - {name: web, command: [x]}\n")
	if !mixed.HasLead() || mixed.Lead.Name != "lead" || len(mixed.All()) != 3 {
		t.Errorf("a Claude Code member implies a lead: HasLead %v, lead %q, All %d", mixed.HasLead(), mixed.Lead.Name, len(mixed.All()))
	}
	alone := mustParse(t, "team: t\n")
	if !alone.HasLead() {
		t.Errorf("a layout with no members is a lead alone")
	}
}

// TestProcessTeamProblems checks what a team of plain processes refuses: a
// lead with command (a lead is Claude Code), and telling a lead it has not.
func TestProcessTeamProblems(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"team: t\nlead:\n  command: [x]\nmembers:\n  - {name: a, command: [y]}\n",
			"t.yaml:3:3: lead.command: the lead is Claude Code, which leads the Claude Code members; for a team of plain processes leave lead: out and list them under members:"},
		{"team: t\nmembers:\n  - {name: a, command: [y]}\nwatchdog:\n  notify:\n    lead: true\n",
			"t.yaml:6:11: watchdog.notify.lead: a team of plain processes has no lead to tell (add a lead: to have one)"},
		{"team: t\nmembers:\n  - {name: a, command: [y]}\nreview: {tellLead: true}\n",
			"t.yaml:4:20: review.tellLead: a team of plain processes has no lead to tell (add a lead: to have one)"},
	} {
		_, err := ParseBytes("t.yaml", []byte(tc.src))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.src, err, tc.want)
		}
	}
}
