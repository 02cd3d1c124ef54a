package codexcli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArgv: the layout's permissionMode as Codex 0.171.0's approval and
// sandbox options (never -a untrusted, which it refuses), the model, the
// member's args, then its first prompt.
func TestArgv(t *testing.T) {
	for mode, want := range map[string]string{
		"":                  "codex --x --cd /w -a on-request -s workspace-write -m m --y -- go",
		"acceptEdits":       "codex --x --cd /w -a on-request -s workspace-write -m m --y -- go",
		"plan":              "codex --x --cd /w -a on-request -s read-only -m m --y -- go",
		"dontAsk":           "codex --x --cd /w -a never -s workspace-write -m m --y -- go",
		"bypassPermissions": "codex --x --cd /w --dangerously-bypass-approvals-and-sandbox -m m --y -- go",
	} {
		if got := strings.Join(Argv("codex", []string{"--x"}, "/w", mode, "m", []string{"--y"}, "go"), " "); got != want {
			t.Errorf("%q: %s\nwant %s", mode, got, want)
		}
	}
	if got := strings.Join(Argv("codex", nil, "/w", "", "", nil, ""), " "); got != "codex --cd /w -a on-request -s workspace-write" {
		t.Errorf("no model, args or prompt: %s", got)
	}
}

// TestMakeHome: the member's home has the user's config with the member's
// folder trusted once (a config that trusts it already is taken as it is),
// and the user's login; the user's folder is only read.
func TestMakeHome(t *testing.T) {
	user, home := t.TempDir(), filepath.Join(t.TempDir(), "m", "codex")
	userConfig := "model = \"gpt-5\"\n[projects.\"/other\"]\ntrust_level = \"trusted\""
	os.WriteFile(filepath.Join(user, "config.toml"), []byte(userConfig), 0o600)
	os.WriteFile(filepath.Join(user, "auth.json"), []byte(`{"k":1}`), 0o600)
	if err := MakeHome(home, user, "/w/a \"b\"", nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(home, "config.toml"))
	want := userConfig + "\n\n# teamctl: the member's folder, trusted\n[projects.\"/w/a \\\"b\\\"\"]\ntrust_level = \"trusted\"\n"
	if string(b) != want {
		t.Errorf("config.toml:\n%s\nwant\n%s", b, want)
	}
	if a, _ := os.ReadFile(filepath.Join(home, "auth.json")); string(a) != `{"k":1}` {
		t.Errorf("auth.json %q", a)
	}
	if fi, _ := os.Stat(home); fi.Mode().Perm() != 0o700 {
		t.Errorf("home %v", fi.Mode())
	}
	if u, _ := os.ReadFile(filepath.Join(user, "config.toml")); string(u) != userConfig {
		t.Errorf("the user's config changed: %s", u)
	}
	// Again, and with the folder trusted by the user: not twice.
	if err := MakeHome(home, home, "/w/a \"b\"", nil); err != nil {
		t.Fatal(err)
	}
	if b2, _ := os.ReadFile(filepath.Join(home, "config.toml")); string(b2) != want {
		t.Errorf("trusted twice:\n%s", b2)
	}
	// No user config at all: the trust alone.
	if err := MakeHome(filepath.Join(t.TempDir(), "h"), t.TempDir(), "/w", nil); err != nil {
		t.Fatal(err)
	}
}

// TestMakeHomeNotify: the member's config.toml starts with teamctl's notify
// (argv as a TOML array, the turn's JSON added by Codex); the user's own
// top-level notify, on one line or over several, is taken out, a notify of
// a table kept; made again from itself, the same file.
func TestMakeHomeNotify(t *testing.T) {
	user, home := t.TempDir(), filepath.Join(t.TempDir(), "m", "codex")
	userConfig := "notify = [\"my-notifier\",\n  \"--loud\"]\nmodel = \"gpt-5\"\n[tui]\nnotify = true\n"
	os.WriteFile(filepath.Join(user, "config.toml"), []byte(userConfig), 0o600)
	notify := []string{"/opt/teamctl bin/teamctl", "hook", "--from", "codex"}
	if err := MakeHome(home, user, "/w", notify); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(home, "config.toml"))
	want := notifyComment + "\nnotify = [\"/opt/teamctl bin/teamctl\", \"hook\", \"--from\", \"codex\"]\nmodel = \"gpt-5\"\n[tui]\nnotify = true\n" +
		"\n# teamctl: the member's folder, trusted\n[projects.\"/w\"]\ntrust_level = \"trusted\"\n"
	if string(b) != want {
		t.Errorf("config.toml:\n%s\nwant\n%s", b, want)
	}
	if err := MakeHome(home, home, "/w", notify); err != nil {
		t.Fatal(err)
	}
	if b2, _ := os.ReadFile(filepath.Join(home, "config.toml")); string(b2) != want {
		t.Errorf("made again:\n%s", b2)
	}
}

// TestParseNotify: Codex's agent-turn-complete is a turn's end with its
// last answer; anything else is not.
func TestParseNotify(t *testing.T) {
	e, ok := ParseNotify([]byte(`{"type":"agent-turn-complete","thread-id":"t","turn-id":"1","cwd":"/w","input-messages":["hi"],"last-assistant-message":"done"}`))
	if !ok || e.LastMessage != "done" || e.Cwd != "/w" {
		t.Errorf("%+v %v", e, ok)
	}
	for _, bad := range []string{``, `{}`, `{"type":"approval-requested"}`, `not json`} {
		if _, ok := ParseNotify([]byte(bad)); ok {
			t.Errorf("%q taken for a turn's end", bad)
		}
	}
}

// TestParseNotifyCaptured: the JSON Codex 0.171.0 gave its notify program
// in e2e TestAgentMembersInALayout: the member's turn is a turn end with its
// last answer; the turn Codex runs beside it to title the session is not
// (the member still works).
func TestParseNotifyCaptured(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	e, ok := ParseNotify(read("notify-0.171.0-turn.json"))
	if !ok || e.LastMessage != "made it" || len(e.Input) != 1 || e.Input[0] != "please make the file" {
		t.Errorf("the member's turn: %+v %v", e, ok)
	}
	if e, ok := ParseNotify(read("notify-0.171.0-title.json")); ok {
		t.Errorf("Codex's title turn taken for the member's turn end: %+v", e)
	}
}

// TestResumeArgv: `codex resume --last` with the member's options and no
// first prompt; HasSession finds a rollout under sessions/.
func TestResumeArgv(t *testing.T) {
	got := strings.Join(ResumeArgv("codex", []string{"--x"}, "/w", "plan", "m", []string{"--y"}), " ")
	if want := "codex --x resume --last --cd /w -a on-request -s read-only -m m --y"; got != want {
		t.Errorf("%s\nwant %s", got, want)
	}
	home := t.TempDir()
	if HasSession(home) {
		t.Error("a session in an empty home")
	}
	day := filepath.Join(home, "sessions", "2026", "12", "05")
	os.MkdirAll(day, 0o700)
	os.WriteFile(filepath.Join(day, "notes.txt"), nil, 0o600)
	if HasSession(home) {
		t.Error("a session without a rollout")
	}
	os.WriteFile(filepath.Join(day, "rollout-2026-12-05T08-00-00-0123.jsonl"), []byte("{}\n"), 0o600)
	if !HasSession(home) {
		t.Error("no session with a rollout")
	}
}
