package geminicli

import (
	"encoding/json"
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
	if err := MakeHome(home, user, nil); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"settings.json": `{"a":1}`, "oauth_creds.json": `{"t":1}`} {
		if b, _ := os.ReadFile(filepath.Join(home, ".gemini", name)); string(b) != want {
			t.Errorf("%s: %q", name, b)
		}
	}
	empty := filepath.Join(t.TempDir(), "g")
	if err := MakeHome(empty, t.TempDir(), nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(empty, ".gemini", "settings.json")); string(b) != "{}\n" {
		t.Errorf("no user settings: %q", b)
	}
}

// TestMakeHomeHook: the member's settings.json has teamctl's AfterAgent hook
// (its argv as shell words, its env), the user's settings and hooks kept;
// made again from itself, the hook is there once; a settings file that is not
// a JSON object is said.
func TestMakeHomeHook(t *testing.T) {
	user, home := t.TempDir(), filepath.Join(t.TempDir(), "gemini")
	os.MkdirAll(filepath.Join(user, ".gemini"), 0o700)
	userSettings := `{"a":1,"hooks":{"AfterAgent":[{"hooks":[{"type":"command","command":"mine"}]}]}}`
	os.WriteFile(filepath.Join(user, ".gemini", "settings.json"), []byte(userSettings), 0o600)
	hook := &Hook{Argv: []string{"/opt/team'ctl", "hook", "--from", "gemini"}, Env: map[string]string{"TEAMCTL_MEMBER": "gem"}}
	for range 2 {
		if err := MakeHome(home, user, hook); err != nil {
			t.Fatal(err)
		}
		user = home
	}
	b, _ := os.ReadFile(filepath.Join(home, ".gemini", "settings.json"))
	var got struct {
		A     int
		Hooks struct {
			AfterAgent, BeforeAgent []struct {
				Hooks []struct {
					Name, Type, Command string
					Env                 map[string]string
				}
			}
		}
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	aa := got.Hooks.AfterAgent
	if got.A != 1 || len(aa) != 2 || aa[0].Hooks[0].Command != "mine" || len(aa[1].Hooks) != 1 ||
		aa[1].Hooks[0].Command != `'/opt/team'\''ctl' 'hook' '--from' 'gemini'` || aa[1].Hooks[0].Env["TEAMCTL_MEMBER"] != "gem" {
		t.Errorf("settings.json:\n%s", b)
	}
	if ba := got.Hooks.BeforeAgent; len(ba) != 1 || len(ba[0].Hooks) != 1 || ba[0].Hooks[0].Command != aa[1].Hooks[0].Command || ba[0].Hooks[0].Name != "teamctl" {
		t.Errorf("BeforeAgent hooks in settings.json:\n%s", b)
	}
	bad := t.TempDir()
	os.MkdirAll(filepath.Join(bad, ".gemini"), 0o700)
	os.WriteFile(filepath.Join(bad, ".gemini", "settings.json"), []byte(`// a comment`), 0o600)
	if err := MakeHome(filepath.Join(t.TempDir(), "g"), bad, hook); err == nil || !strings.Contains(err.Error(), "settings.json") {
		t.Errorf("settings that are not JSON: %v", err)
	}
}

// TestParseHook: AfterAgent is a turn's end with the model's answer,
// BeforeAgent a turn's start; other hooks are neither.
func TestParseHook(t *testing.T) {
	e, ok := ParseHook([]byte(`{"session_id":"s","cwd":"/w","hook_event_name":"AfterAgent","timestamp":"t","prompt":"hi","prompt_response":"done","stop_hook_active":false}`))
	if !ok || !e.Ended() || e.Response != "done" {
		t.Errorf("%+v %v", e, ok)
	}
	if e, ok := ParseHook([]byte(`{"hook_event_name":"BeforeAgent","prompt":"hi"}`)); !ok || e.Ended() || e.Prompt != "hi" {
		t.Errorf("BeforeAgent: %+v %v", e, ok)
	}
	for _, bad := range []string{``, `{}`, `{"hook_event_name":"Notification"}`, `not json`} {
		if _, ok := ParseHook([]byte(bad)); ok {
			t.Errorf("%q taken for a turn's start or end", bad)
		}
	}
}

// TestParseHookCaptured: the JSON Gemini CLI 0.61.0 gave its BeforeAgent
// and AfterAgent hooks on stdin in e2e TestAgentMembersInALayout.
func TestParseHookCaptured(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if e, ok := ParseHook(read("afteragent-0.61.0.json")); !ok || !e.Ended() || e.Response != "made it" {
		t.Errorf("AfterAgent: %+v %v", e, ok)
	}
	if e, ok := ParseHook(read("beforeagent-0.61.0.json")); !ok || e.Ended() || e.Prompt != "please make the file" {
		t.Errorf("BeforeAgent: %+v %v", e, ok)
	}
}

// TestResumeArgv: --resume latest with the member's options and no first
// prompt; HasSession finds a chat under .gemini/tmp/<project>/chats/.
func TestResumeArgv(t *testing.T) {
	got := strings.Join(ResumeArgv("gemini", nil, "acceptEdits", "m", []string{"--y"}), " ")
	if want := "gemini --approval-mode auto_edit -m m --y --resume latest"; got != want {
		t.Errorf("%s\nwant %s", got, want)
	}
	home := t.TempDir()
	if HasSession(home) {
		t.Error("a session in an empty home")
	}
	chats := filepath.Join(home, ".gemini", "tmp", "w-1a2b", "chats")
	os.MkdirAll(chats, 0o700)
	os.WriteFile(filepath.Join(chats, "session-2026-12-05T08-00-ab12cd34.json"), []byte("{}"), 0o600)
	if !HasSession(home) {
		t.Error("no session with a chat")
	}
}
