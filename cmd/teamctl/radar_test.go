package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestConflictRadar: two members edit the same lines of one file in their
// worktrees, uncommitted, and their turns end (a Stop hook from each one's
// pane, as Claude Code's would run there): a conflict event naming both and
// the file appears without anyone asking, status shows it on both, the
// lead is told (review.tellLead); once one of them reverts and its turn
// ends, a conflict-resolved event; bob committing the conflicting line by
// hand in his worktree, no turn ending, is seen (his branch moved): the
// conflict again.
func TestConflictRadar(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	repo, lines := appRepo(t, e)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: radar
root: repo
review:
  tellLead: true
lead: {}
members:
  - name: alice
    command: [sh]
    worktree: true
  - name: bob
    command: [sh]
    worktree: true
`))
	st, _ := readState(t, e, "radar")
	pane := map[string]string{}
	for _, m := range st.Members {
		pane[m.Name] = m.Pane
	}
	wt := func(m string) string { return filepath.Join(repo, ".teamctl", "worktrees", "radar", m) }
	// turnEnds runs Claude Code's Stop hook in member's pane, as its hooks do.
	turnEnds := func(member string) {
		t.Helper()
		line := `echo '{"hook_event_name":"Stop"}' | TEAMCTL_TEAM=radar TEAMCTL_MEMBER=` + member + ` '` + e.Bin + `' hook`
		if out, err := e.Tmux(st.Socket, "send-keys", "-t", pane[member], "-l", line); err != nil {
			t.Fatalf("send-keys: %v %s", err, out)
		}
		if out, err := e.Tmux(st.Socket, "send-keys", "-t", pane[member], "Enter"); err != nil {
			t.Fatalf("send-keys: %v %s", err, out)
		}
	}
	type event struct {
		Kind   string   `json:"kind"`
		Member string   `json:"member"`
		Other  string   `json:"other"`
		Files  []string `json:"files"`
		Detail string   `json:"detail"`
	}
	events := func(kind string) ([]event, string) {
		r := e.MustRun("events", "--team", "radar", "--json")
		var out []event
		for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
			var ev event
			if json.Unmarshal([]byte(l), &ev) == nil && (kind == "" || ev.Kind == kind) {
				out = append(out, ev)
			}
		}
		return out, r.Stdout
	}
	named := func(ev event) bool {
		return ev.Member == "alice" && ev.Other == "bob" && slices.Equal(ev.Files, []string{"app.go"})
	}

	editApp(t, wt("alice"), "alice")
	editApp(t, wt("bob"), "bob")
	turnEnds("alice")
	turnEnds("bob")
	testenv.Eventually(t, 30*time.Second, "a conflict event of alice and bob in app.go", func() (bool, string) {
		evs, all := events("conflict")
		return len(evs) == 1 && named(evs[0]), all
	})
	testenv.Eventually(t, 15*time.Second, "status showing the conflict on both", func() (bool, string) {
		r := e.MustRun("status", "--team", "radar")
		return strings.Contains(r.Stdout, "conflicts with bob in app.go") && strings.Contains(r.Stdout, "conflicts with alice in app.go"), r.Stdout
	})
	testenv.Eventually(t, 30*time.Second, "the lead told of the conflict", func() (bool, string) {
		evs, all := events("notify")
		return slices.ContainsFunc(evs, func(ev event) bool {
			return strings.Contains(ev.Detail, "told the lead: <task-notification><members>alice, bob</members><status>conflict</status>")
		}), all
	})
	if r := e.MustRun("events", "--team", "radar"); !strings.Contains(r.Stdout, "alice's and bob's work would conflict if merged, in app.go (contents)") {
		t.Errorf("events does not print the conflict:\n%s", r.Stdout)
	}

	os.WriteFile(filepath.Join(wt("bob"), "app.go"), []byte(lines), 0o644)
	turnEnds("bob")
	testenv.Eventually(t, 30*time.Second, "a conflict-resolved event of alice and bob", func() (bool, string) {
		evs, all := events("conflict-resolved")
		return len(evs) == 1 && named(evs[0]), all
	})
	if evs, all := events("conflict"); len(evs) != 1 {
		t.Errorf("conflict events: %d, want the one\n%s", len(evs), all)
	}
	if r := e.MustRun("status", "--team", "radar"); strings.Contains(r.Stdout, "conflicts with") {
		t.Errorf("status still shows a conflict gone:\n%s", r.Stdout)
	}

	editApp(t, wt("bob"), "bob")
	gitIn(t, wt("bob"), "commit", "-q", "-am", "bob's five")
	testenv.Eventually(t, 30*time.Second, "a conflict event again, from bob's branch moving", func() (bool, string) {
		evs, all := events("conflict")
		return len(evs) == 2 && named(evs[1]), all
	})
}
