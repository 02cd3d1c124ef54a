package main_test

import (
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestStatusSaysWorking (issue 31: status said running where top and the
// web page say working): status, its table and its JSON, names a Claude
// Code member whose program runs and is not idle "working", as top and
// serve do, and a plain process "running".
func TestStatusSaysWorking(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: words
members:
  - name: busy
    env: {TEAMCTL_STANDIN_SCRIPT: "busy"}
  - name: web
    command: [sleep, "1000"]
`))
	waitMember(t, e, "words", "busy", 30*time.Second, func(m memberStatus) bool { return m.State == "working" })
	if m := member(statusOf(t, e, "words"), "web"); m.State != "running" {
		t.Errorf("status --json: the process web is %q, want running", m.State)
	}
	testenv.Eventually(t, 30*time.Second, "status's table to say busy working and web running", func() (bool, string) {
		busy, web := statusRow(t, e, "words", "busy"), statusRow(t, e, "words", "web")
		return strings.Contains(busy, " working ") && strings.Contains(web, " running "), busy + "\n" + web
	})
}
