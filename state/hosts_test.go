package state

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRelayedFolder: a relay's mark records the Claude Code teams it keeps
// on this host, each once; removing the folder says which they were; a
// folder that holds a team of this host's too is left.
func TestRelayedFolder(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	for range 2 {
		if err := MarkRelayed("far", "session-0123abcd"); err != nil {
			t.Fatal(err)
		}
	}
	dir, _ := Dir("far")
	if got := RelayedClaudeTeams(dir); !slices.Equal(got, []string{"session-0123abcd"}) {
		t.Errorf("recorded %q", got)
	}
	if _, err := OpenTeamEventLog("far"); err != nil {
		t.Errorf("a relayed folder takes no hook events: %v", err)
	}
	teams, err := RemoveRelayed("far")
	if err != nil || !slices.Equal(teams, []string{"session-0123abcd"}) {
		t.Errorf("RemoveRelayed: %q %v", teams, err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("%s is still there", dir)
	}
	if err := MarkRelayed("both", "session-0123abcd"); err != nil {
		t.Fatal(err)
	}
	both, _ := Dir("both")
	os.WriteFile(filepath.Join(both, "state.json"), []byte("{}"), 0o600)
	if _, err := RemoveRelayed("both"); err == nil {
		t.Errorf("a folder with a team of this host's was removed")
	}
	if teams, err := RemoveRelayed("never"); teams != nil || err != nil {
		t.Errorf("a folder that is not there: %q %v", teams, err)
	}
}
