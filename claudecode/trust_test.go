package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestTrust(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, ".claude.json")
	orig := `{"hasCompletedOnboarding": true, "numStartups": 7,
  "projects": {"/repo": {"hasTrustDialogAccepted": true, "allowedTools": ["Read"]},
               "/elsewhere/wt": {"lastCost": 1.5}}}`
	if err := os.WriteFile(cfg, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir, top, main string
		want           bool
	}{
		{"/repo", "/repo", "", true},
		{"/repo/src/deep", "/repo", "", true},                                           // below a trusted checkout
		{"/repo/.teamctl/worktrees/t/a", "/repo/.teamctl/worktrees/t/a", "/repo", true}, // its main checkout is trusted
		{"/wt/a", "/wt/a", "/repo", true},                                               // wherever the worktree is
		{"/repository", "/repository", "", false},
		{"/elsewhere/wt", "/elsewhere/wt", "/other", false},
		{"/", "", "", false},
	}
	for _, tt := range tests {
		if got, err := Trusted(cfg, tt.dir, tt.top, tt.main); err != nil || got != tt.want {
			t.Errorf("Trusted(%s, top %q, main %q) = %v, %v; want %v", tt.dir, tt.top, tt.main, got, err, tt.want)
		}
	}
	// A trusted folder above a repository does not cover the repository (seen
	// with Claude Code 2.1.328); outside git it covers every folder below.
	os.WriteFile(cfg, []byte(`{"projects": {"/work": {"hasTrustDialogAccepted": true}}}`), 0o600)
	if ok, _ := Trusted(cfg, "/work/repo", "/work/repo", ""); ok {
		t.Error("a trusted folder above a repository covered it")
	}
	if ok, _ := Trusted(cfg, "/work/plain/deep", "", ""); !ok {
		t.Error("a trusted folder did not cover a plain folder below it")
	}
	os.WriteFile(cfg, []byte(orig), 0o600)
	if err := Trust(cfg, "/elsewhere/wt"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := Trusted(cfg, "/elsewhere/wt/sub", "/elsewhere/wt", "/other"); !ok {
		t.Error("not trusted after Trust")
	}
	var got map[string]any
	b, _ := os.ReadFile(cfg)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	projects := got["projects"].(map[string]any)
	if got["numStartups"] != 7.0 || got["hasCompletedOnboarding"] != true ||
		projects["/elsewhere/wt"].(map[string]any)["lastCost"] != 1.5 ||
		projects["/repo"].(map[string]any)["allowedTools"] == nil {
		t.Errorf("other keys lost:\n%s", b)
	}
}

func TestTrustLeavesABrokenConfigAlone(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), ".claude.json")
	os.WriteFile(cfg, []byte("{not json"), 0o600)
	if err := Trust(cfg, "/x"); err == nil {
		t.Fatal("Trust rewrote a config that does not parse")
	}
	if b, _ := os.ReadFile(cfg); string(b) != "{not json" {
		t.Errorf("config changed: %q", b)
	}
	if err := Trust(filepath.Join(t.TempDir(), "new", ".claude.json"), "/x"); err != nil {
		t.Errorf("no config yet: %v", err)
	}
}
