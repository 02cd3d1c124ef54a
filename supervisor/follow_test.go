package supervisor

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/state"
)

// TestDaemonWritesOnlyInClaudeCodesFolder: with state.json's claude_config
// rewritten to another folder, the daemon still writes what it writes — the
// placeholder config a teammate needs once the lead's is gone — in Claude
// Code's folder of its environment, and nothing in the other folder.
func TestDaemonWritesOnlyInClaudeCodesFolder(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, "never"}, member{"mate", state.RoleTeammate, "never"})
	victim := filepath.Join(t.TempDir(), "victim")
	if err := w.s.updateTeam(w.ctx, func(st *state.Team) { st.ClaudeConfig = victim }); err != nil {
		t.Fatal(err)
	}
	own, _ := claudecode.TeamConfigPath(os.Getenv("CLAUDE_CONFIG_DIR"), w.s.st.ClaudeTeam)
	os.Remove(own) // the lead ended
	w.changed("config")
	if _, err := os.Stat(own); err != nil {
		t.Errorf("no placeholder config in Claude Code's folder: %v", err)
	}
	if _, err := os.Lstat(victim); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the daemon wrote in the folder state.json names (%s): %v", victim, err)
	}
}
