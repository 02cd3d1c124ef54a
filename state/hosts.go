package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/atomicfile"

	"github.com/teamctl/teamctl/internal/safefile"
)

// Host is a host where members of the team run, as up took it from the
// layout's hosts:.
type Host struct {
	Name string `json:"name"`
	SSH  string `json:"ssh"`  // the ssh destination
	Root string `json:"root"` // as the layout says it (~/… is under the remote home)
	// Dir is Root as the host resolved it (an absolute path there).
	Dir string `json:"dir"`
	// Teamctl is this teamctl's copy there (for Claude Code's hooks and the
	// relay), when a Claude Code member runs there.
	Teamctl string `json:"teamctl,omitempty"`
}

// Host is the team's host called name.
func (t *Team) Host(name string) (Host, bool) {
	for _, h := range t.Hosts {
		if h.Name == name {
			return h, true
		}
	}
	return Host{}, false
}

// Remote reports whether the member runs on another host.
func (m *Member) Remote() bool { return m.Host != "" }

// SSHDir is the 0700 folder, in the state root, of the shared ssh
// connections' sockets (one per host, for every team: ssh's ControlPath).
// Its name starts with a dot, which no team's name does.
func SSHDir() (string, error) {
	if err := EnsureRoot(); err != nil {
		return "", err
	}
	root, err := Root()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, ".ssh")
	if err := safefile.EnsureDir(dir, "ssh connections folder", 0o700); err != nil {
		return "", err
	}
	return dir, nil
}

// relayMark names the file that marks a team's folder on a host where some
// of its members run, its supervisor on another (package relay): the
// members' hooks record their events there for the relay to carry.
const relayMark = "relayed"

// MarkRelayed makes the team's folder on this host one whose members' hook
// events a relay carries to the team's supervisor on another host, and
// records the Claude Code team the relay keeps here (claudeTeams, one a
// line): the only ones its clean may remove.
func MarkRelayed(team, claudeTeam string) error {
	dir, err := EnsureDir(team)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, relayMark)
	if slices.Contains(RelayedClaudeTeams(dir), claudeTeam) {
		return nil
	}
	old, _ := safefile.ReadFile(path, 1<<16)
	return atomicfile.WriteFile(path, append(old, []byte(claudeTeam+"\n")...), 0o600)
}

// RelayedClaudeTeams are the Claude Code teams a relay recorded in dir's
// mark.
func RelayedClaudeTeams(dir string) []string {
	b, err := safefile.ReadFile(filepath.Join(dir, relayMark), 1<<16)
	if err != nil {
		return nil
	}
	return strings.Fields(string(b))
}

// relayed reports whether dir is marked by MarkRelayed.
func relayed(dir string) bool {
	fi, err := os.Lstat(filepath.Join(dir, relayMark))
	return err == nil && fi.Mode().IsRegular()
}

// RemoteWorktree is a worktree teamctl made for a member on another host.
type RemoteWorktree struct {
	Member        string    `json:"member"`
	Host          string    `json:"host"`
	Path          string    `json:"path"` // there
	Main          string    `json:"main"` // the host's repository there (its root)
	Branch        string    `json:"branch"`
	Base          string    `json:"base,omitempty"`
	CreatedBranch bool      `json:"created_branch"`
	CreatedAt     time.Time `json:"created_at"`
}

// RemoteWorktree is the worktree teamctl made for member on its host.
func (t *Team) RemoteWorktree(member string) (*RemoteWorktree, bool) {
	for i := range t.RemoteWorktrees {
		if t.RemoteWorktrees[i].Member == member {
			return &t.RemoteWorktrees[i], true
		}
	}
	return nil, false
}

// RemoveRelayed removes the team's folder on this host when it is one a
// relay marked (MarkRelayed), and returns the Claude Code teams the relay
// recorded there (nil: not a relay's folder).
func RemoveRelayed(team string) ([]string, error) {
	dir, err := Dir(team)
	if err != nil {
		return nil, err
	}
	if err := safefile.CheckDir(dir, "state folder"); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	if !relayed(dir) {
		return nil, nil
	}
	if _, err := os.Lstat(filepath.Join(dir, "state.json")); err == nil {
		return nil, fmt.Errorf("%s holds a team of this host's too: left", dir)
	}
	teams := RelayedClaudeTeams(dir)
	return teams, os.RemoveAll(dir)
}

// LocalCwd is the folder of the team's lead, else of its first member on
// this machine ("" for none): where the team's repository here is, which
// its members' work on other hosts is fetched into.
func (t *Team) LocalCwd() string {
	for _, m := range t.Members {
		if m.Role == RoleLead {
			return m.Cwd
		}
	}
	for _, m := range t.Members {
		if !m.Remote() {
			return m.Cwd
		}
	}
	return ""
}
