package launch

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
)

// TestTeamClaudeConfigDir: Claude Code's folder of a team is the one its layout
// gives the lead while the layout is the file up read; a layout changed
// since, or another team's, gives teamctl's own environment's; never the
// folder state.json records.
func TestTeamClaudeConfigDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(dir, "env"))
	p := filepath.Join(dir, "team.yaml")
	write := func(yaml string) *state.Team {
		t.Helper()
		if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := layouts.Parse(p)
		if err != nil {
			t.Fatal(err)
		}
		return &state.Team{Team: "re", LayoutPath: p, LayoutDigest: l.Digest, LayoutFile: state.StampOf(p), ClaudeConfig: "/srv/victim"}
	}
	st := write("team: re\nlead:\n  env: {CLAUDE_CONFIG_DIR: " + filepath.Join(dir, "layout") + "}\n")
	if got := TeamClaudeConfigDir(st); got != filepath.Join(dir, "layout") {
		t.Errorf("the layout up read: %q", got)
	}
	if err := os.WriteFile(p, []byte("team: re\nlead:\n  env: {CLAUDE_CONFIG_DIR: /srv/victim}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := TeamClaudeConfigDir(st); got != filepath.Join(dir, "env") {
		t.Errorf("a layout changed since up: %q", got)
	}
	other := write("team: other\nlead:\n  env: {CLAUDE_CONFIG_DIR: " + filepath.Join(dir, "layout") + "}\n")
	other.Team = "re"
	if got := TeamClaudeConfigDir(other); got != filepath.Join(dir, "env") {
		t.Errorf("another team's layout: %q", got)
	}
}
