package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/internal/fakeapi"
)

// TestTeammatePermissionRequestIsBrokered: a real Claude Code teammate in manual
// permission mode does not ask on its screen but writes a permission_request to
// the lead's mailbox and waits. teamctl shows it as waiting-approval; approve
// makes the command really run, deny keeps it from running.
func TestTeammatePermissionRequestIsBrokered(t *testing.T) {
	t.Parallel()
	const askA, askB = "Write marker A; token PERM-MATE-A-51c2.", "Write marker B; token PERM-MATE-B-7e90."
	w := newWorld(t, "e2e-perm-mate", true, fakeapi.Rules(
		fakeapi.Rule{When: fakeapi.AfterToolResult(), Reply: fakeapi.Always(fakeapi.Text("Finished."))},
		fakeapi.Rule{When: fakeapi.LastUserContains(askA), Reply: fakeapi.Always(fakeapi.Bash("echo a > marker-a.txt", "Write marker A"))},
		fakeapi.Rule{When: fakeapi.LastUserContains(askB), Reply: fakeapi.Always(fakeapi.Bash("echo b > marker-b.txt", "Write marker B"))},
	))
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	layout := w.e.WriteFile("team.yaml", fmt.Sprintf(`team: %s
claude:
  command: claude
members:
  - name: alice
    permissionMode: manual
    prompt: %s
  - name: bob
    permissionMode: manual
    prompt: %s
`, w.team, q(askA), q(askB)))
	w.e.MustRun("up", layout)
	markerA, markerB := filepath.Join(w.e.Work, "marker-a.txt"), filepath.Join(w.e.Work, "marker-b.txt")

	for _, name := range []string{"alice", "bob"} {
		poll(t, wait, name+" waiting for approval", func() (bool, string) {
			r := w.e.MustRun("status", "--json", "--team", w.team)
			var st struct {
				Members []struct {
					Name    string `json:"name"`
					State   string `json:"state"`
					Request *struct {
						Tool  string `json:"tool"`
						Input string `json:"input"`
					} `json:"request"`
				} `json:"members"`
			}
			json.Unmarshal([]byte(r.Stdout), &st)
			for _, m := range st.Members {
				if m.Name == name {
					return m.State == "waiting-approval" && m.Request != nil && m.Request.Tool == "Bash" && strings.Contains(m.Request.Input, "marker"), r.Stdout
				}
			}
			return false, r.Stdout
		})
	}
	for _, p := range []string{markerA, markerB} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s exists before any answer (%v)", p, err)
		}
	}
	w.e.MustRun("approve", "alice", "--team", w.team)
	w.e.MustRun("deny", "bob", "--reason", "not in this test", "--team", w.team)
	poll(t, wait, "alice's command to run", func() (bool, string) {
		b, err := os.ReadFile(markerA)
		return err == nil && strings.TrimSpace(string(b)) == "a", fmt.Sprint(err)
	})
	w.waitRequest("bob's denied tool_result", func(r fakeapi.Request) bool {
		return r.IsToolResult() && strings.Contains(strings.Join(r.UserTexts(), " "), askB) && r.LastUser().ToolResults()[0].IsError
	})
	if _, err := os.Stat(markerB); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("bob's denied command ran (%v)", err)
	}
	evs := w.events()
	for _, name := range []string{"alice", "bob"} {
		if len(stallsOf(evs, "permission-request", name)) != 1 || len(stallsOf(evs, "permission-answer", name)) != 1 {
			t.Errorf("%s: want one permission-request and one permission-answer event:\n%s", name, eventLines(evs))
		}
	}
	if t.Failed() {
		w.dump()
	}
}
