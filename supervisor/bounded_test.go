package supervisor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/state"
)

// TestFilesNotReadAreReportedOnce: a task file or config.json over its limit,
// and an inboxes/ that is a symlink, are not read and are reported once each
// (file-refused, naming the file) however often they change; what points
// elsewhere is neither read nor written.
func TestFilesNotReadAreReportedOnce(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"mate", state.RoleTeammate, ""})
	st := w.s.st
	refused := func() []string {
		var out []string
		for _, e := range w.events(state.EventFileRefused, "") {
			out = append(out, e.Detail)
		}
		return out
	}
	sparse := func(path string, size int64) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o700)
		if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
	}

	tasks, _ := claudecode.TasksDir(st.ClaudeConfig, st.ClaudeTeam)
	big := filepath.Join(tasks, "big.json")
	sparse(big, 400<<20)
	os.WriteFile(filepath.Join(tasks, "1.json"), []byte(`{"id":"1","subject":"small","status":"pending"}`), 0o600)
	w.changed("tasks")
	w.changed("tasks")
	if got := refused(); len(got) != 1 || !strings.Contains(got[0], big+" is too large to read (400.0 MiB; teamctl reads up to 1.0 MiB)") {
		t.Fatalf("file-refused events: %q", got)
	}
	if evs := w.events(state.EventTask, ""); len(evs) != 1 || !strings.Contains(evs[0].Detail, "small") {
		t.Errorf("task events: %+v", evs)
	}
	// Gone, and back: a new report.
	os.Remove(big)
	w.changed("tasks")
	sparse(big, 400<<20)
	w.changed("tasks")
	if got := refused(); len(got) != 2 {
		t.Errorf("after the file came back: %q", got)
	}

	cfg, _ := claudecode.TeamConfigPath(st.ClaudeConfig, st.ClaudeTeam)
	sparse(cfg, 300<<20)
	w.changed("config")
	w.changed("config")
	if got := refused(); len(got) != 3 || !strings.Contains(got[2], cfg+" is too large to read (300.0 MiB; teamctl reads up to 4.0 MiB)") {
		t.Errorf("file-refused events: %q", got)
	}
	os.Remove(cfg)

	// inboxes/ a link to a folder holding a request from mate.
	elsewhere := t.TempDir()
	in, _ := json.Marshal(map[string]string{"command": "make test"})
	req := claudecode.PermissionRequestMessage("mate", claudecode.PermissionRequest{RequestID: "r1", AgentID: "mate@" + st.ClaudeTeam, ToolName: "Bash", Input: in}, w.clock.Now())
	b, _ := json.Marshal([]claudecode.Message{req})
	os.WriteFile(filepath.Join(elsewhere, "team-lead.json"), b, 0o600)
	inboxes := filepath.Dir(mustInbox(t, w, claudecode.LeadMailboxName))
	os.RemoveAll(inboxes)
	if err := os.Symlink(elsewhere, inboxes); err != nil {
		t.Fatal(err)
	}
	w.changed("inbox")
	w.changed("inbox")
	if got := refused(); len(got) != 4 || !strings.Contains(got[3], inboxes+" is a symlink") {
		t.Errorf("file-refused events: %q", got)
	}
	if got := w.live("mate").State; got == state.StateWaitingApproval {
		t.Error("a request read through the link")
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 1 {
		t.Errorf("written through the link: %v", ents)
	}
}
