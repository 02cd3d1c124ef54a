package geminicli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArgv: the layout's permissionMode as Gemini CLI 0.61.0's
// --approval-mode, the model, the member's args, then its first prompt (-i:
// run it and stay interactive).
func TestArgv(t *testing.T) {
	for mode, want := range map[string]string{
		"":                  "gemini --approval-mode default -m m --y -i go",
		"manual":            "gemini --approval-mode default -m m --y -i go",
		"acceptEdits":       "gemini --approval-mode auto_edit -m m --y -i go",
		"plan":              "gemini --approval-mode plan -m m --y -i go",
		"bypassPermissions": "gemini --approval-mode yolo -m m --y -i go",
	} {
		if got := strings.Join(Argv("gemini", nil, mode, "m", []string{"--y"}, "go"), " "); got != want {
			t.Errorf("%q: %s\nwant %s", mode, got, want)
		}
	}
}

// TestMakeHome: the member's home has the user's settings and login, the
// user's own only read; with none, an empty settings object.
func TestMakeHome(t *testing.T) {
	user, home := t.TempDir(), filepath.Join(t.TempDir(), "gemini")
	os.MkdirAll(filepath.Join(user, ".gemini"), 0o700)
	os.WriteFile(filepath.Join(user, ".gemini", "settings.json"), []byte(`{"a":1}`), 0o600)
	os.WriteFile(filepath.Join(user, ".gemini", "oauth_creds.json"), []byte(`{"t":1}`), 0o600)
	if err := MakeHome(home, user); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"settings.json": `{"a":1}`, "oauth_creds.json": `{"t":1}`} {
		if b, _ := os.ReadFile(filepath.Join(home, ".gemini", name)); string(b) != want {
			t.Errorf("%s: %q", name, b)
		}
	}
	empty := filepath.Join(t.TempDir(), "g")
	if err := MakeHome(empty, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(empty, ".gemini", "settings.json")); string(b) != "{}\n" {
		t.Errorf("no user settings: %q", b)
	}
}
