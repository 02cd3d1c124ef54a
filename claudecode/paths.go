// Package claudecode is the one place that knows Claude Code's files under
// ~/.claude (team configs, mailboxes, task folders) and its launch flags. Everything
// here follows what Claude Code was observed to do (the versions in
// tested-versions.txt); docs/claude-code.md records the observations, each with
// the version it was seen on.
package claudecode

import (
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ConfigDir returns Claude Code's configuration folder: $CLAUDE_CONFIG_DIR when set,
// else $HOME/.claude.
func ConfigDir() (string, error) {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d, nil
	}
	home := os.Getenv("HOME")
	if home == "" {
		return "", errors.New("claude config dir: neither CLAUDE_CONFIG_DIR nor HOME is set")
	}
	return filepath.Join(home, ".claude"), nil
}

// ValidName reports whether name is safe to use as one path element: non-empty,
// not "." or "..", and made only of [A-Za-z0-9._@-].
func ValidName(name string) bool {
	if name == "" || name == "." || name == ".." {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '.', r == '_', r == '@', r == '-':
		default:
			return false
		}
	}
	return true
}

// MaxMemberName is the longest teammate name teamctl takes from Claude Code's files.
const MaxMemberName = 64

// ValidMemberName reports whether a teammate's name read from Claude Code's
// team config is one teamctl may use as a member's name: in its state and
// events, in a tmux option, on the command line and as the name of the
// member's mailbox. It is a ValidName (no control characters, spaces or
// slashes) of at most MaxMemberName bytes that starts with a letter or digit,
// so it never reads as a flag. It allows more than a layout's names (capitals,
// "_", "."), since the name must stay the one Claude Code gave its mailbox.
func ValidMemberName(name string) bool {
	if len(name) > MaxMemberName || !ValidName(name) {
		return false
	}
	c := name[0]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func checkNames(kind string, names ...string) error {
	for _, n := range names {
		if !ValidName(n) {
			return fmt.Errorf("invalid %s name %q: use letters, digits and . _ @ - only", kind, n)
		}
	}
	return nil
}

// TeamDir is configDir/teams/TEAM.
func TeamDir(configDir, team string) (string, error) {
	if err := checkNames("team", team); err != nil {
		return "", err
	}
	return filepath.Join(configDir, "teams", team), nil
}

// TeamConfigPath is configDir/teams/TEAM/config.json.
func TeamConfigPath(configDir, team string) (string, error) {
	d, err := TeamDir(configDir, team)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "config.json"), nil
}

// InboxPath is configDir/teams/TEAM/inboxes/MEMBER.json.
func InboxPath(configDir, team, member string) (string, error) {
	d, err := TeamDir(configDir, team)
	if err != nil {
		return "", err
	}
	if err := checkNames("member", member); err != nil {
		return "", err
	}
	return filepath.Join(d, "inboxes", member+".json"), nil
}

// TasksDir is configDir/tasks/TEAM.
func TasksDir(configDir, team string) (string, error) {
	if err := checkNames("team", team); err != nil {
		return "", err
	}
	return filepath.Join(configDir, "tasks", team), nil
}

// LeadTeamName is the team Claude Code (since 2.1.178) makes implicitly for a lead
// session: "session-" followed by the first 8 characters of the session id.
func LeadTeamName(sessionID string) string {
	if len(sessionID) > 8 {
		sessionID = sessionID[:8]
	}
	return "session-" + sessionID
}

// NewSessionID returns a random UUID (version 4), as --session-id expects.
func NewSessionID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand: " + err.Error()) // never fails on Linux
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// TeammateSessionID is the session UUID of teammate name of the team whose lead
// runs session leadSession: derived from both, so that every plan of the team
// gives the teammate the same one (its launch is unchanged) and another team's
// never collides. Shaped as a version 4 UUID, which --session-id takes.
func TeammateSessionID(leadSession, name string) string {
	sum := sha256.Sum256([]byte("teamctl teammate session\x00" + leadSession + "\x00" + name))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// SessionExists reports whether Claude Code has a stored conversation for
// session id (projects/<folder>/<id>.jsonl), which `--resume id` needs: without
// one, Claude Code exits with "No conversation found with session ID".
func SessionExists(configDir, id string) bool {
	if !ValidName(id) {
		return false
	}
	matches, _ := filepath.Glob(filepath.Join(configDir, "projects", "*", id+".jsonl"))
	return len(matches) > 0
}
