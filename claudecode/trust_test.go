package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestTrust(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, ".claude.json")
	orig := `{"hasCompletedOnboarding": true, "numStartups": 7,
  "projects": {"/repo": {"hasTrustDialogAccepted": true, "allowedTools": ["Read"]},
               "/elsewhere/wt": {"lastCost": 1.5}}}`
	if err := os.WriteFile(cfg, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]bool{"/repo": true, "/repo/.teamctl/worktrees/t/a": true, "/repository": false, "/elsewhere/wt": false, "/": false} {
		if got, err := Trusted(cfg, dir); err != nil || got != want {
			t.Errorf("Trusted(%s) = %v, %v; want %v", dir, got, err, want)
		}
	}
	if err := Trust(cfg, "/elsewhere/wt"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := Trusted(cfg, "/elsewhere/wt/sub"); !ok {
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
