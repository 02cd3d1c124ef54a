package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// budgetStatus is what status --json says of a member's state and spending.
type budgetStatus struct {
	Members []struct {
		Name   string `json:"name"`
		Pane   string `json:"pane"`
		State  string `json:"state"`
		Reason string `json:"reason"`
		Usage  *struct {
			Turns int     `json:"turns"`
			Cost  float64 `json:"cost"`
		} `json:"usage"`
	} `json:"members"`
}

func budgetMember(t *testing.T, e *testenv.Env, team, name string) (state, reason string, cost float64, turns int) {
	t.Helper()
	var s budgetStatus
	r := e.MustRun("status", "--json", "--team", team)
	if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
		t.Fatal(err, r.Stdout)
	}
	for _, m := range s.Members {
		if m.Name == name {
			if m.Usage != nil {
				cost, turns = m.Usage.Cost, m.Usage.Turns
			}
			return m.State, m.Reason, cost, turns
		}
	}
	t.Fatalf("no member %s in %s", name, r.Stdout)
	return
}

// appendResponse appends to the transcript of session (under Claude Code's
// folder of e) one response costing dollars of claude-sonnet-4-5 output
// ($15 a million tokens), as Claude Code writes it: compact JSON.
func appendResponse(t *testing.T, e *testenv.Env, session, msgID string, dollars float64) {
	t.Helper()
	dir := filepath.Join(e.ClaudeDir, "projects", "-work")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, session+".jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, `{"type":"assistant","sessionId":"%s","timestamp":"%s","message":{"id":"%s","model":"claude-sonnet-4-5","role":"assistant","usage":{"input_tokens":0,"output_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}`+"\n",
		session, time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), msgID, int64(dollars/15e-6+0.5))
}

// TestBudgetInterruptsAndHolds: a real team (stand-ins in tmux, its
// supervisor) whose lead's transcript grows past the lead's budget with
// action interrupt: the supervisor follows the transcript as it is written
// (status shows the cost before the budget is reached), sends Escape to the
// lead's pane (its terminal echoes it as ^[) and holds it; status, events and
// top say so; top's R lets it go, as resume-member does.
func TestBudgetInterruptsAndHolds(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: spend
budget: {member: 1, action: interrupt}
lead:
  env: {TEAMCTL_STANDIN_SCRIPT: "sleep:1h"}
members:
  - name: mate
    env: {TEAMCTL_STANDIN_SCRIPT: "sleep:1h"}
`))
	st, _ := readState(t, e, "spend")
	lead := memberPane(t, e, "spend", "lead")

	appendResponse(t, e, st.LeadSessionID, "msg_01", 0.6)
	testenv.Eventually(t, 20*time.Second, "the lead's cost followed", func() (bool, string) {
		state, _, cost, turns := budgetMember(t, e, "spend", "lead")
		return cost == 0.6 && turns == 1 && state != "held", fmt.Sprintf("%s $%v %d turns", state, cost, turns)
	})
	if s := screen(e, "teamctl-spend", lead); strings.Contains(s, "^[") {
		t.Fatalf("Escape sent below the budget:\n%s", s)
	}
	r := e.MustRun("status", "--team", "spend")
	if !regexp.MustCompile(`(?m)^lead +lead +%\d+ +\d+ +\S+ +\S+ +\$0\.60 `).MatchString(r.Stdout) || !strings.Contains(r.Stdout, "spent $0.60") {
		t.Errorf("status has no COST of $0.60 for the lead:\n%s", r.Stdout)
	}

	appendResponse(t, e, st.LeadSessionID, "msg_02", 0.6)
	testenv.Eventually(t, 20*time.Second, "the lead held", func() (bool, string) {
		state, reason, cost, _ := budgetMember(t, e, "spend", "lead")
		return state == "held" && strings.Contains(reason, "budget: lead has spent its $1.00 budget: $1.20; interrupted"), fmt.Sprintf("%s %q $%v", state, reason, cost)
	})
	waitScreen(t, e, "teamctl-spend", lead, "^[")
	if state, _, _, _ := budgetMember(t, e, "spend", "mate"); state == "held" {
		t.Error("mate held for the lead's budget")
	}
	r = e.MustRun("status", "--team", "spend")
	if !regexp.MustCompile(`(?m)^lead +lead +%\d+ +\d+ +held .*\$1\.20 .*budget: lead has spent its \$1\.00 budget`).MatchString(r.Stdout) {
		t.Errorf("status does not show the lead held:\n%s", r.Stdout)
	}
	r = e.MustRun("events", "--team", "spend")
	for _, want := range []string{"usage", "lead has spent its $1.00 budget: $1.20; interrupted and held until `teamctl resume-member lead`", "held"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("events do not say %q:\n%s", want, r.Stdout)
		}
	}

	// top shows it held, with its cost, and R lets it go.
	out, err := e.Tmux(viewerSocket, "new-session", "-d", "-s", "v", "-x", "110", "-y", "24", "-c", e.Dir, "-P", "-F", "#{pane_id}",
		e.Bin, "top", "--team", "spend")
	if err != nil {
		t.Fatalf("start top: %v %s", err, out)
	}
	v := &viewer{t: t, e: e, pane: strings.TrimSpace(out)}
	v.wait("the lead held in top, with its cost", func(s string) bool {
		rows := tableRows(s)
		return len(rows) == 2 && regexp.MustCompile(`^> lead +lead +held .*\$1\.20 +budget: lead has spent`).MatchString(rows[0]) &&
			strings.Contains(s, "COST") && strings.Contains(s, "R release")
	})
	v.keys("R")
	testenv.Eventually(t, 20*time.Second, "the lead released", func() (bool, string) {
		state, _, _, _ := budgetMember(t, e, "spend", "lead")
		return state != "held", state
	})
	r = e.MustRun("events", "--team", "spend", "--json")
	if !strings.Contains(r.Stdout, `"kind":"released"`) || !strings.Contains(r.Stdout, "teamctl resume-member") {
		t.Errorf("no released event:\n%s", r.Stdout)
	}
	if r := e.Run("resume-member", "lead", "--team", "spend"); r.Code != 1 || !strings.Contains(r.Stderr, "lead is not held") {
		t.Errorf("resume-member of a member not held: exit %d\n%s", r.Code, r.Stderr)
	}
}
