package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/testenv"
)

// claudeFolders makes Claude Code's teams/NAME and tasks/NAME under root,
// each with a file, as a team someone else has there, and returns the files.
func claudeFolders(t *testing.T, root, name string) []string {
	t.Helper()
	var files []string
	for _, f := range []string{filepath.Join(root, "teams", name, "notes.txt"), filepath.Join(root, "tasks", name, "1.json")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(`{"id":"1"}`), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// TestCleanTakesClaudeCodesFolderFromItsEnvironment: a state.json whose
// claude_config names another folder (here one holding teams/ and tasks/
// folders of the names it records), and whose Claude Code team names are not
// the shape Claude Code gives (a team that is no session-<8 hex>, a lead
// session that is no UUID), makes clean remove none of those: Claude Code's
// folder is the one the environment gives (CLAUDE_CONFIG_DIR, or the
// layout's env when it sets one), where the team's own Claude Code team is
// still found and removed; clean says which folder it looked in.
func TestCleanTakesClaudeCodesFolderFromItsEnvironment(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	victim := filepath.Join(e.Work, "victim")
	layoutDir := filepath.Join(e.Dir, "layout-claude")
	e.MustRun("up", standInLayout(e, "lure.yaml", "team: lure\nmembers:\n  - name: mate\n    prompt: hi\n"))
	e.MustRun("up", standInLayout(e, "away.yaml", fmt.Sprintf("team: away\nenv:\n  CLAUDE_CONFIG_DIR: %q\nmembers:\n  - name: mate\n    prompt: hi\n", layoutDir)))
	for _, team := range []string{"lure", "away"} {
		e.MustRun("down", "--team", team, "--now")
	}

	var keep []string // what clean must leave
	keep = append(keep, claudeFolders(t, victim, "session-deadbeef")...)
	keep = append(keep, claudeFolders(t, victim, "session-0badf00d")...)
	keep = append(keep, claudeFolders(t, e.ClaudeDir, "important")...)
	keep = append(keep, claudeFolders(t, e.ClaudeDir, "session-feedface")...)
	var gone []string // the teams' own Claude Code folders, which clean removes
	for team, dir := range map[string]string{"lure": e.ClaudeDir, "away": layoutDir} {
		st, _ := readState(t, e, team)
		for _, p := range []string{filepath.Join(dir, "teams", st.ClaudeTeam), filepath.Join(dir, "tasks", st.ClaudeTeam)} {
			if !exists(p) {
				t.Fatalf("%s is not there after down", p)
			}
			gone = append(gone, p)
		}
		if team == "away" {
			// The same name in the folder teamctl runs with is not the team's:
			// its layout gave its members another.
			keep = append(keep, claudeFolders(t, e.ClaudeDir, st.ClaudeTeam)...)
		}
		editJSON(t, filepath.Join(e.StateHome, "teamctl", team, "state.json"), func(v map[string]any) {
			v["claude_config"] = victim
			v["claude_team"] = "session-deadbeef"
			v["lead_session_id"] = "deadbeef-0000-4000-8000-000000000000"
			v["earlier"] = []any{
				// The team's own, recorded in the wrong folder.
				map[string]any{"claude_team": st.ClaudeTeam, "claude_config": victim, "lead_session_id": st.LeadSessionID},
				map[string]any{"claude_team": "session-0badf00d", "claude_config": victim, "lead_session_id": "0badf00d-0000-4000-8000-000000000000"},
				map[string]any{"claude_team": "important", "claude_team_session": "0f0f0f0f-0000-4000-8000-000000000000", "lead_session_id": "11111111-0000-4000-8000-000000000000"},
				map[string]any{"claude_team": "session-feedface", "claude_config": e.ClaudeDir, "lead_session_id": "feedface"},
			}
		})
	}

	for _, team := range []string{"lure", "away"} {
		r := e.Run("clean", "--yes", team)
		if r.Code != 0 {
			t.Errorf("clean %s: exit %d\n%s%s", team, r.Code, r.Stdout, r.Stderr)
		}
		if !strings.Contains(r.Stdout, victim) {
			t.Errorf("clean %s does not say it left the folder state.json names (%s):\n%s", team, victim, r.Stdout)
		}
		if exists(filepath.Join(e.StateHome, "teamctl", team)) {
			t.Errorf("clean %s kept the team's state", team)
		}
	}
	for _, p := range keep {
		if !exists(p) {
			t.Errorf("clean removed %s, which is not the teams'", p)
		}
	}
	for _, p := range gone {
		if exists(p) {
			t.Errorf("clean left %s, the team's own", p)
		}
	}
}

// TestCleanLeavesClaudeCodeTeamsOfOthers: a state.json rewritten to record,
// as the team's Claude Code teams (one it followed the lead to, and earlier
// lives), the team of another teamctl team that runs, the team of one that is
// down, and a person's own Claude Code session (its lead runs, with the start
// time its config names) makes clean remove none of them; the team's own
// Claude Code team and its state still go.
func TestCleanLeavesClaudeCodeTeamsOfOthers(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	body := "members:\n  - name: mate\n    prompt: hi\n"
	for _, team := range []string{"prey", "hunter", "downed"} {
		e.MustRun("up", standInLayout(e, team+".yaml", "team: "+team+"\n"+body))
	}
	e.MustRun("down", "--team", "hunter", "--now")
	e.MustRun("down", "--team", "downed", "--now")
	prey, _ := readState(t, e, "prey")
	downed, _ := readState(t, e, "downed")
	hunter, _ := readState(t, e, "hunter")

	// A person's own Claude Code session: its lead runs.
	lead := exec.Command("sleep", "600")
	if err := lead.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lead.Process.Kill(); lead.Wait() })
	start, err := proc.StartTime(lead.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	mine := claudeFolders(t, e.ClaudeDir, "session-c0ffee00")
	os.WriteFile(filepath.Join(e.ClaudeDir, "teams", "session-c0ffee00", "config.json"), []byte(fmt.Sprintf(
		`{"name": "session-c0ffee00", "leadSessionId": "c0ffee00-0000-4000-8000-000000000000", "leadProcess": {"pid": %d, "procStart": %q}, "members": [{"name": "team-lead"}]}`,
		lead.Process.Pid, start)), 0o600)

	keep := append([]string{}, mine...)
	for _, st := range []stateFile{prey, downed} {
		for _, d := range []string{"teams", "tasks"} {
			p := filepath.Join(e.ClaudeDir, d, st.ClaudeTeam)
			if !exists(p) {
				t.Fatalf("%s is not there", p)
			}
			keep = append(keep, p)
		}
	}
	editJSON(t, filepath.Join(e.StateHome, "teamctl", "hunter", "state.json"), func(v map[string]any) {
		// As the supervisor records a team it followed the lead to.
		v["claude_team"], v["claude_team_session"] = prey.ClaudeTeam, prey.LeadSessionID
		v["earlier"] = []any{
			map[string]any{"claude_team": hunter.ClaudeTeam, "lead_session_id": hunter.LeadSessionID},
			map[string]any{"claude_team": downed.ClaudeTeam, "lead_session_id": downed.LeadSessionID},
			map[string]any{"claude_team": "session-c0ffee00", "claude_team_session": "c0ffee00-0000-4000-8000-000000000000", "lead_session_id": hunter.LeadSessionID},
		}
	})

	r := e.Run("clean", "--yes", "hunter")
	if r.Code != 0 {
		t.Errorf("clean hunter: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, p := range keep {
		if !exists(p) {
			t.Errorf("clean hunter removed %s, another team's", p)
		}
	}
	for _, want := range []string{"team prey's state.json records it too", "team downed's state.json records it too", fmt.Sprintf("its lead process (pid %d) runs", lead.Process.Pid)} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("clean hunter does not say %q:\n%s", want, r.Stdout)
		}
	}
	for _, p := range []string{filepath.Join(e.ClaudeDir, "teams", hunter.ClaudeTeam), filepath.Join(e.StateHome, "teamctl", "hunter")} {
		if exists(p) {
			t.Errorf("clean hunter left %s, its own", p)
		}
	}
	for _, m := range getStatus(t, e, "prey").Members {
		if !live(m.State) {
			t.Errorf("prey's %s is %s after clean hunter", m.Name, m.State)
		}
	}
	// Nor does --all --force take them for Claude Code's own leftovers.
	if _, res := runClean(t, e, "--all", "--force"); res.Code != 0 {
		t.Errorf("clean --all --force: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	for _, p := range append(mine, filepath.Join(e.ClaudeDir, "teams", prey.ClaudeTeam)) {
		if !exists(p) {
			t.Errorf("clean --all --force removed %s", p)
		}
	}
}
