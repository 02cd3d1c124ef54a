package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

type protoStatus struct {
	Members []struct {
		Name    string `json:"name"`
		Pane    string `json:"pane"`
		State   string `json:"state"`
		Result  string `json:"result"`
		Request *struct {
			ID    string `json:"id"`
			Tool  string `json:"tool"`
			Input string `json:"input"`
		} `json:"request"`
	} `json:"members"`
}

// TestPermissionRequestApprovedAndDenied: a teammate's permission request (in
// the lead's mailbox, as Claude Code writes it) shows as waiting-approval with
// the tool and its input; approve makes the command run, deny keeps it from
// running; each answer is an event and clears the state.
func TestPermissionRequestApprovedAndDenied(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	yes := filepath.Join(e.Work, "approved.txt")
	no := filepath.Join(e.Work, "denied.txt")
	e.MustRun("up", standInLayout(e, "team.yaml", fmt.Sprintf(`team: perms
members:
  - name: granted
    env: {TEAMCTL_STANDIN_SCRIPT: "bash:touch %s"}
  - name: refused
    env: {TEAMCTL_STANDIN_SCRIPT: "bash:touch %s"}
`, yes, no)))
	status := func() protoStatus {
		var s protoStatus
		json.Unmarshal([]byte(e.MustRun("status", "--json", "--team", "perms").Stdout), &s)
		return s
	}
	for _, name := range []string{"granted", "refused"} {
		testenv.Eventually(t, 20*time.Second, name+" waiting for approval", func() (bool, string) {
			for _, m := range status().Members {
				if m.Name == name {
					return m.State == "waiting-approval" && m.Request != nil && m.Request.Tool == "Bash", fmt.Sprintf("%+v", m)
				}
			}
			return false, "no member"
		})
	}
	if _, err := os.Stat(yes); err == nil {
		t.Fatal("the command ran before it was approved")
	}
	e.MustRun("approve", "granted", "--team", "perms")
	e.MustRun("deny", "refused", "--reason", "not now", "--team", "perms")
	testenv.Eventually(t, 20*time.Second, "the approved command to run", func() (bool, string) {
		_, err := os.Stat(yes)
		return err == nil, fmt.Sprint(err)
	})
	st := status()
	for _, m := range st.Members {
		if m.Name == "refused" {
			waitScreen(t, e, "teamctl-perms", m.Pane, "Denied: not now")
		}
	}
	if _, err := os.Stat(no); err == nil {
		t.Error("the denied command ran")
	}
	testenv.Eventually(t, 20*time.Second, "both to leave waiting-approval", func() (bool, string) {
		s := status()
		for _, m := range s.Members {
			if m.State == "waiting-approval" {
				return false, fmt.Sprintf("%+v", s.Members)
			}
		}
		return true, ""
	})
	evs := events(t, e, "perms")
	for _, name := range []string{"granted", "refused"} {
		if countEvents(evs, name, "permission-request") != 1 || countEvents(evs, name, "permission-answer") != 1 {
			t.Errorf("%s events: %+v", name, evs)
		}
	}
	if r := e.Run("approve", "granted", "--team", "perms"); r.Code == 0 {
		t.Errorf("a second approve with nothing waiting succeeded: %s", r.Stdout)
	}
}
