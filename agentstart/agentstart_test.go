package agentstart

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReady: a member's home under the team's state folder, named in its
// environment; Gemini's without CI (with it, 0.61.0 shows no UI); a name
// that is no member's, or a kind teamctl does not run this way, refused.
func TestReady(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	state := filepath.Join(os.Getenv("XDG_STATE_HOME"), "teamctl", "mixed", "agents")
	env, err := Ready("gemini", "mixed", "gem", "/w", "", []string{"HOME=" + t.TempDir(), "CI=true", "PATH=/bin", "GEMINI_CLI_HOME=", "CONTINUOUS_INTEGRATION=1"})
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(state, "gem", "gemini")
	if want := []string{"PATH=/bin", "GEMINI_CLI_HOME=" + home, "GEMINI_CLI_TRUST_WORKSPACE=true"}; !slices.Equal(env[1:], want) {
		t.Errorf("env %q, want HOME then %q", env, want)
	}
	if _, err := os.Stat(filepath.Join(home, ".gemini", "settings.json")); err != nil {
		t.Error(err)
	}
	env, err = Ready("codex", "mixed", "rev", "/w", "/opt/teamctl", []string{"CODEX_HOME=" + t.TempDir()})
	if err != nil || !slices.Contains(env, "CODEX_HOME="+filepath.Join(state, "rev", "codex")) || len(env) != 1 {
		t.Errorf("codex env %q, %v", env, err)
	}
	if b, _ := os.ReadFile(filepath.Join(state, "rev", "codex", "config.toml")); !strings.Contains(string(b), `notify = ["/opt/teamctl", "hook", "--from", "codex"]`) {
		t.Errorf("codex config.toml without teamctl's notify:\n%s", b)
	}
	for _, c := range [][3]string{{"codex", "mixed", "../x"}, {"codex", "../t", "rev"}, {"claude", "mixed", "rev"}} {
		if _, err := Ready(c[0], c[1], c[2], "/w", "", nil); err == nil {
			t.Errorf("Ready%q: no error", c)
		}
	}
}
