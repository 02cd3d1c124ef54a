package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestStopAndStartOneMember: stop holds a member and ends it (a Claude Code
// teammate on its shutdown_request, a process on SIGTERM); status shows it
// held, "stopped by a person", and the supervisor does not restart it, even
// a restart: always process; start brings it back, running again in its
// pane's place, a teammate's conversation resumed.
func TestStopAndStartOneMember(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	layout := standInLayout(e, "team.yaml", `team: stops
members:
  - name: alice
    env: {TEAMCTL_STANDIN_SCRIPT: "busy"}
  - name: web
    command: [sleep, "1000"]
    restart: always
`)
	e.MustRun("up", layout)
	type member struct {
		Name, State, Reason, Pane string
		PID                       int
		Restarts                  int
	}
	statusOf := func() map[string]member {
		r := e.MustRun("status", "--json", "--team", "stops")
		var s struct{ Members []member }
		if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
			t.Fatalf("status --json: %v\n%s", err, r.Stdout)
		}
		out := map[string]member{}
		for _, m := range s.Members {
			out[m.Name] = m
		}
		return out
	}
	before := statusOf()

	r := e.MustRun("stop", "web", "--team", "stops")
	if !strings.Contains(r.Stdout, "stopped web (ended on SIGTERM); held until teamctl start web") {
		t.Errorf("stop web said:\n%s", r.Stdout)
	}
	r = e.MustRun("stop", "alice", "--team", "stops")
	if !strings.Contains(r.Stdout, "stopped alice (it approved the shutdown request and ended)") {
		t.Errorf("stop alice said:\n%s", r.Stdout)
	}
	// The supervisor took both holds, alice's after web's exit: whatever it
	// decided of that exit, it has decided.
	testenv.Eventually(t, 20*time.Second, "both exits seen by the supervisor", func() (bool, string) {
		evs := events(t, e, "stops")
		return countEvents(evs, "web", "exit") == 1 && countEvents(evs, "alice", "exit") == 1, ""
	})
	r2 := e.MustRun("stop", "lead", "--team", "stops") // a third look through the loop, after both exits
	_ = r2
	for name, m := range statusOf() {
		if name == "lead" {
			continue
		}
		if m.State != "held" || !strings.Contains(m.Reason, "stopped by a person (teamctl stop)") || m.Restarts != 0 {
			t.Errorf("%s after stop: %+v", name, m)
		}
	}
	evs := events(t, e, "stops")
	if n := countEvents(evs, "web", "restart"); n != 0 {
		t.Errorf("web, stopped, was restarted %d times", n)
	}
	if log, _ := os.ReadFile(filepath.Join(e.StateHome, "teamctl", "stops", "supervisor.log")); strings.Contains(string(log), `msg="restart scheduled" team=stops member=web`) {
		t.Errorf("the supervisor scheduled web's restart:\n%s", log)
	}
	if r := e.Run("stop", "web", "--team", "stops"); r.Code != 1 || !strings.Contains(r.Stderr, "web is stopped already") {
		t.Errorf("stop of a stopped member: exit %d\n%s", r.Code, r.Stderr)
	}

	// alice's conversation, as Claude Code stores one (the stand-in does not).
	st, _ := readState(t, e, "stops")
	for _, m := range st.Members {
		if m.Name == "alice" {
			if m.SessionID == "" {
				t.Fatal("alice has no session id on record")
			}
			dir := filepath.Join(e.ClaudeDir, "projects", "-work")
			os.MkdirAll(dir, 0o700)
			if err := os.WriteFile(filepath.Join(dir, m.SessionID+".jsonl"), []byte("{}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, name := range []string{"web", "alice", "lead"} {
		r = e.MustRun("start", name, "--team", "stops")
		if !strings.Contains(r.Stdout, "started "+name+" again (pid ") {
			t.Errorf("start %s said:\n%s", name, r.Stdout)
		}
	}
	after := statusOf()
	for _, name := range []string{"web", "alice", "lead"} {
		if m := after[name]; m.State == "held" || m.State == "exited" || m.PID == before[name].PID {
			t.Errorf("%s after start: %+v (before: pid %d)", name, m, before[name].PID)
		}
	}
	for _, m := range st.Members {
		if m.Name == "alice" {
			argv, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(after["alice"].PID), "cmdline"))
			if !strings.Contains(string(argv), "--resume") {
				t.Errorf("alice started afresh, not resumed: %q", argv)
			}
		}
	}
	if r := e.Run("start", "web", "--team", "stops"); r.Code != 1 || !strings.Contains(r.Stderr, "web is running") {
		t.Errorf("start of a running member: exit %d\n%s", r.Code, r.Stderr)
	}
	e.MustRun("down", "--team", "stops")
}
