package clean

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/state"
)

// TestClaudeFolderOfARunningLeadStays: the Claude Code team a stopped team
// records is planned for removal while its config names a lead that is
// gone; a lead that runs by the time clean gets there (one that took the
// folder over meanwhile) keeps it: the folder's removal fails saying so, and
// what waits for it (its tasks, the team's record) stays. Planned with that
// lead running, it is not planned at all, and a note says why.
func TestClaudeFolderOfARunningLeadStays(t *testing.T) {
	ctx := world(t)
	claude := filepath.Join(t.TempDir(), "claude")
	t.Setenv("CLAUDE_CONFIG_DIR", claude)
	sid := claudecode.NewSessionID()
	name := claudecode.LeadTeamName(sid)
	now := time.Now().UTC()
	if err := state.Save(&state.Team{Team: "t", ClaudeTeam: name, LeadSessionID: sid, CreatedAt: now, StoppedAt: &now}); err != nil {
		t.Fatal(err)
	}
	teamDir, tasksDir := filepath.Join(claude, "teams", name), filepath.Join(claude, "tasks", name)
	os.MkdirAll(tasksDir, 0o700)
	os.WriteFile(filepath.Join(tasksDir, "1.json"), []byte(`{"id":"1"}`), 0o600)
	writeConfig := func(cfg claudecode.TeamConfig) {
		t.Helper()
		os.MkdirAll(teamDir, 0o700)
		b, _ := json.Marshal(cfg)
		if err := os.WriteFile(filepath.Join(teamDir, "config.json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	running := claudecode.MinimalTeamConfig(name, sid, "/", os.Getpid(), time.Now())

	writeConfig(running)
	r, err := Plan(ctx, Options{Team: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range r.Actions {
		if a.Target == teamDir || a.Target == tasksDir {
			t.Errorf("planned with its lead running: %+v", a)
		}
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "runs") {
		t.Errorf("no note says its lead runs: %q", r.Notes)
	}

	writeConfig(claudecode.PlaceholderTeamConfig(name, sid, "/", time.Now()))
	r, err = Plan(ctx, Options{Team: "t"})
	if err != nil {
		t.Fatal(err)
	}
	writeConfig(running) // the lead came back before clean got there
	Execute(ctx, r)
	var folder *Action
	for _, a := range r.Actions {
		if a.Target == teamDir {
			folder = a
		}
	}
	if folder == nil || folder.Result != Failed || !strings.Contains(folder.Detail, "runs") {
		t.Errorf("the team folder: %+v, want failed saying its lead runs", folder)
	}
	dir, _ := state.Dir("t")
	for _, p := range []string{filepath.Join(teamDir, "config.json"), filepath.Join(tasksDir, "1.json"), filepath.Join(dir, "state.json")} {
		if !exists(p) {
			t.Errorf("%s was removed while the lead runs", p)
		}
	}
}
