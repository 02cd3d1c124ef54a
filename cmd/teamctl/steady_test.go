package main_test

import (
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestSteadyPrinterThatStopsAtAQuestionIsStalled: members printing 50 lines
// a second for longer than the supervisor takes to switch their output off
// (it then probes them once a quiet period): the one that stops at a
// question is reported stalled, once; the one that prints on is not.
func TestSteadyPrinterThatStopsAtAQuestionIsStalled(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a steady printer takes seconds to be paused; supervisor/outswitch_test.go decides the same on the fake clock")
	}
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: steady
watchdog: {quiet: 1s}
members:
  - name: asker
    env: {TEAMCTL_STANDIN_SCRIPT: "lines:50:5s,ask"}
  - name: printer
    env: {TEAMCTL_STANDIN_SCRIPT: "lines:50"}
`))
	m := waitMember(t, e, "steady", "asker", 30*time.Second, func(m memberStatus) bool { return m.State == "stalled" })
	if m.Stall == nil || m.Stall.Line != "Overwrite? (y/n)" {
		t.Fatalf("stall: %+v", m.Stall)
	}
	// Some quiet periods later: still one stall, and none of the printer.
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		evs := events(t, e, "steady")
		if n := countEvents(evs, "asker", "stall"); n != 1 {
			t.Fatalf("%d stall events for one question", n)
		}
		if n := countEvents(evs, "printer", "stall"); n != 0 {
			t.Fatalf("the member printing steadily was stalled")
		}
	}
	if s := member(statusOf(t, e, "steady"), "printer"); s.State == "stalled" || s.State == "exited" || s.State == "failed" {
		t.Errorf("the member printing steadily is %s", s.State)
	}
}
