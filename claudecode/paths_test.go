package claudecode

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestConfigDir(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", "/cfg")
	t.Setenv("HOME", "/home/u")
	if d, err := ConfigDir(); err != nil || d != "/cfg" {
		t.Errorf("with CLAUDE_CONFIG_DIR: %q, %v", d, err)
	}
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	if d, err := ConfigDir(); err != nil || d != "/home/u/.claude" {
		t.Errorf("with HOME: %q, %v", d, err)
	}
	t.Setenv("HOME", "")
	if _, err := ConfigDir(); err == nil {
		t.Error("no HOME: want an error")
	}
}

func TestPaths(t *testing.T) {
	t.Parallel()
	c := "/c"
	check := func(got string, err error, want string) {
		t.Helper()
		if err != nil || got != want {
			t.Errorf("got %q, %v; want %q", got, err, want)
		}
	}
	p, err := TeamDir(c, "session-1234abcd")
	check(p, err, "/c/teams/session-1234abcd")
	p, err = TeamConfigPath(c, "t")
	check(p, err, "/c/teams/t/config.json")
	p, err = InboxPath(c, "t", "researcher")
	check(p, err, "/c/teams/t/inboxes/researcher.json")
	p, err = InboxPath(c, "t", "a.b_c@d-E9")
	check(p, err, "/c/teams/t/inboxes/a.b_c@d-E9.json")
	p, err = TasksDir(c, "t")
	check(p, err, filepath.Join(c, "tasks", "t"))
}

func TestNameValidation(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", ".", "..", "../x", "a/b", `a\b`, "a\x00b", "a b", "é", "x:y"} {
		if _, err := TeamDir("/c", bad); err == nil {
			t.Errorf("TeamDir(%q): want error", bad)
		}
		if _, err := TeamConfigPath("/c", bad); err == nil {
			t.Errorf("TeamConfigPath(%q): want error", bad)
		}
		if _, err := TasksDir("/c", bad); err == nil {
			t.Errorf("TasksDir(%q): want error", bad)
		}
		if _, err := InboxPath("/c", bad, "m"); err == nil {
			t.Errorf("InboxPath(team %q): want error", bad)
		}
		if _, err := InboxPath("/c", "t", bad); err == nil {
			t.Errorf("InboxPath(member %q): want error", bad)
		}
	}
}

func TestSessionIDs(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	a, b := NewSessionID(), NewSessionID()
	if !re.MatchString(a) || !re.MatchString(b) || a == b {
		t.Errorf("NewSessionID: %q, %q", a, b)
	}
	if got := LeadTeamName("12345678-1234-4234-8234-123456789abc"); got != "session-12345678" {
		t.Errorf("LeadTeamName = %q", got)
	}
	if got := LeadTeamName(a); !ValidName(got) {
		t.Errorf("LeadTeamName(%q) = %q is not a valid name", a, got)
	}
}

func TestSessionExists(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	id := "0123abcd-0000-4000-8000-000000000000"
	if SessionExists(dir, id) {
		t.Fatal("no projects folder, yet a session")
	}
	p := filepath.Join(dir, "projects", "-tmp-work")
	os.MkdirAll(p, 0o700)
	os.WriteFile(filepath.Join(p, id+".jsonl"), []byte("{}\n"), 0o600)
	if !SessionExists(dir, id) {
		t.Fatal("stored session not found")
	}
	if SessionExists(dir, "../x") || SessionExists(dir, "*") {
		t.Fatal("an invalid id matched")
	}
}

func TestValidMemberName(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"researcher", "Code_Reviewer", "web.2", "a", strings.Repeat("a", MaxMemberName)} {
		if !ValidMemberName(ok) {
			t.Errorf("%q refused", ok)
		}
	}
	for _, bad := range []string{"", "a\nb", "a b", "../x", "a/b", "-rf", ".hidden", "..", "\x1b[2J", "é", strings.Repeat("a", MaxMemberName+1)} {
		if ValidMemberName(bad) {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestTeammateSessionID(t *testing.T) {
	t.Parallel()
	a := TeammateSessionID("12345678-1234-4234-8234-123456789abc", "alice")
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(a) {
		t.Errorf("%q is not a version 4 UUID", a)
	}
	if again := TeammateSessionID("12345678-1234-4234-8234-123456789abc", "alice"); again != a {
		t.Errorf("not stable: %q then %q", a, again)
	}
	for _, other := range []string{TeammateSessionID("12345678-1234-4234-8234-123456789abc", "bob"), TeammateSessionID("22345678-1234-4234-8234-123456789abc", "alice")} {
		if other == a {
			t.Errorf("another teammate or team has the same session %q", a)
		}
	}
}

func TestTestedVersions(t *testing.T) {
	t.Parallel()
	vs := TestedVersions()
	if len(vs) < 2 || vs[0] != "2.1.328" {
		t.Fatalf("TestedVersions = %q: want the pinned 2.1.328 first and a newer one", vs)
	}
	if !IsTestedVersion(Version("2.1.332 (Claude Code)")) || IsTestedVersion(Version("2.1.3 (Claude Code)")) || Version("") != "" {
		t.Error("IsTestedVersion/Version")
	}
}

// TestIDShapes: what state.json says of a session or a team must have the
// shape Claude Code gives it before it names a folder.
func TestIDShapes(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]bool{
		NewSessionID():                          true,
		"0123abcd-0000-4000-8000-000000000000":  true,
		"0123ABCD-0000-4000-8000-000000000000":  false,
		"0123abcd-0000-4000-8000-00000000000":   false,
		"0123abcd-0000-4000-8000-0000000000000": false,
		"0123abcd00000-4000-8000-000000000000":  false,
		"--dangerously-skip-permissions":        false,
		"../../../../etc/passwd-0000-0000-0000": false,
		"":                                      false,
		"feedface":                              false,
	} {
		if got := ValidSessionID(id); got != want {
			t.Errorf("ValidSessionID(%q) = %v, want %v", id, got, want)
		}
	}
	for name, want := range map[string]bool{
		LeadTeamName(NewSessionID()): true,
		"session-0123abcd":           true,
		"session-0123ABCD":           false,
		"session-0123abc":            false,
		"session-0123abcde":          false,
		"session-../../x":            false,
		"important":                  false,
		"":                           false,
	} {
		if got := IsLeadTeamName(name); got != want {
			t.Errorf("IsLeadTeamName(%q) = %v, want %v", name, got, want)
		}
	}
}
