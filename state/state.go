// Package state is a team's folder, $XDG_STATE_HOME/teamctl/<team>/ (0700,
// files 0600, nothing written through a symlink): the contract between the
// lifecycle verbs (package team) and the supervising daemon (package
// supervisor), which never talk otherwise. It holds state.json (the team's
// server, panes, sessions, worktrees; written by up, down and the daemon under
// the team's lock), live.json (what the daemon knows of each member now),
// events.jsonl (every transition, appended by all, rotated by size), the lead
// queue (text for the lead), the members' last words (logs/: what a pane
// showed when its program ended), the supervisor's lock and log; the names of
// member states, roles, origins and event kinds; and the team's socket name.
// Live views (status -w, top) learn what changed in teams' folders through
// its one watch of them (Watch). File I/O only: it runs nothing.
package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/teamctl/teamctl/internal/atomicfile"
	"github.com/teamctl/teamctl/internal/safefile"
)

// Version is the state.json format; a newer file is refused rather than misread.
const Version = 1

// Team is the state of one team.
type Team struct {
	Version       int        `json:"version"`
	Team          string     `json:"team"`
	LayoutPath    string     `json:"layout_path"`
	LayoutDigest  string     `json:"layout_digest"`
	Socket        string     `json:"socket"`          // always SocketName(Team); Load refuses anything else
	SocketPath    string     `json:"socket_path"`     // always SocketPath(Team); Load refuses anything else
	Session       string     `json:"session"`         // always Team; Load refuses anything else
	ClaudeTeam    string     `json:"claude_team"`     // the lead's implicit team, session-XXXXXXXX
	ClaudeConfig  string     `json:"claude_config"`   // the Claude Code folder up found for the team; a record only: never read back as a path (relaunch.ClaudeConfigDir)
	LeadSessionID string     `json:"lead_session_id"` // kept so a restart can resume
	CreatedAt     time.Time  `json:"created_at"`
	UpdatedAt     time.Time  `json:"updated_at"`
	StoppedAt     *time.Time `json:"stopped_at,omitempty"`
	Members       []Member   `json:"members"`
	Worktrees     []Worktree `json:"worktrees,omitempty"` // the ones teamctl made; clean removes only these (and Claude Code's own)
	// Hosts are the other hosts where members run (hosts.go), and the
	// worktrees teamctl made there (never in Worktrees: no code of this
	// machine's checkouts may take one for its own).
	Hosts           []Host           `json:"hosts,omitempty"`
	RemoteWorktrees []RemoteWorktree `json:"remote_worktrees,omitempty"`

	// LayoutFile is the layout file's owner and mode when up read it: with
	// LayoutDigest, what its file must still have before teamctl takes it
	// again without the person naming it (up --all).
	LayoutFile *FileStamp `json:"layout_file,omitempty"`

	// ClaudeTeamSession is the leadSessionId of ClaudeTeam's config when the
	// lead claimed a team not named after its session (the supervisor's
	// team-moved); "" otherwise.
	ClaudeTeamSession string `json:"claude_team_session,omitempty"`

	// PromptsInPlaceholder are the layout teammates whose prompt up left in
	// the mailboxes of a placeholder team config (the lead had written none in
	// time). A Claude Code lead that takes a placeholder over empties
	// inboxes/ (seen, 2.1.328): the supervisor gives those prompts again.
	PromptsInPlaceholder []string `json:"prompts_in_placeholder,omitempty"`

	// Earlier are the Claude Code teams of the team's earlier lives, before an
	// `up` started it afresh (`up --fresh`, or after `down`): kept so that
	// clean still finds their folders.
	Earlier []Earlier `json:"earlier,omitempty"`
}

// FileStamp is who owns a file and who may write to it.
type FileStamp struct {
	UID  int    `json:"uid"`
	GID  int    `json:"gid"`
	Mode string `json:"mode"` // permission bits in octal, as chmod takes them: "0644"
}

// Earlier is one earlier life of a team: its Claude Code team and the
// sessions that named it.
type Earlier struct {
	ClaudeTeam        string    `json:"claude_team"`
	ClaudeTeamSession string    `json:"claude_team_session,omitempty"`
	ClaudeConfig      string    `json:"claude_config"` // a record only, as Team.ClaudeConfig
	LeadSessionID     string    `json:"lead_session_id"`
	Until             time.Time `json:"until"`
}

// Lives are the team's Claude Code teams, the earlier ones first and the
// current one last, each as a Team holding only those fields.
func (t *Team) Lives() []*Team {
	var out []*Team
	for _, e := range t.Earlier {
		out = append(out, &Team{Team: t.Team, ClaudeTeam: e.ClaudeTeam, ClaudeTeamSession: e.ClaudeTeamSession, ClaudeConfig: e.ClaudeConfig, LeadSessionID: e.LeadSessionID})
	}
	return append(out, &Team{Team: t.Team, ClaudeTeam: t.ClaudeTeam, ClaudeTeamSession: t.ClaudeTeamSession, ClaudeConfig: t.ClaudeConfig, LeadSessionID: t.LeadSessionID})
}

// Worktree is a git worktree teamctl made for a member.
type Worktree struct {
	Member        string    `json:"member"`
	Path          string    `json:"path"`
	Main          string    `json:"main"`             // the repository's main checkout, where git worktree commands run
	Folder        string    `json:"folder,omitempty"` // the team's worktrees folder: Path is <Folder>/<team>/<Member>
	Branch        string    `json:"branch"`
	Base          string    `json:"base,omitempty"` // what the branch was made from; its commits are checked against it
	CreatedBranch bool      `json:"created_branch"` // the branch is teamctl's too (deleted with the worktree once merged)
	CreatedAt     time.Time `json:"created_at"`
}

// Member is one pane of the team.
type Member struct {
	Name      string `json:"name"`
	Role      Role   `json:"role"`
	Origin    Origin `json:"origin"` // "" in a file from before origins: layout
	Pane      string `json:"pane"`
	Window    string `json:"window,omitempty"`
	PID       int    `json:"pid"`
	SessionID string `json:"session_id,omitempty"`
	Agent     string `json:"agent,omitempty"` // a process that is another agent CLI: "codex", "gemini"
	// Host is the host of Team.Hosts the member runs on ("": this machine);
	// its Pane and Window are then that host's server's, qualified with it
	// (tmux.Qualify: "%3@gpu1"), and PID is a process there, never here.
	Host      string    `json:"host,omitempty"`
	Cwd       string    `json:"cwd"`
	Argv      []string  `json:"argv"`
	Env       []string  `json:"env,omitempty"`     // what teamctl gave the pane with -e, for a restart
	Restart   string    `json:"restart,omitempty"` // on-failure, never, always
	Digest    string    `json:"digest"`            // of the member's launch spec, to notice a changed layout
	StartedAt time.Time `json:"started_at"`
	Restarts  int       `json:"restarts"`
}

// ClaudeLeadSession is the leadSessionId of the team's Claude Code team: the
// lead's session, or the one recorded for a team the lead moved to.
func (t *Team) ClaudeLeadSession() string {
	if t.ClaudeTeamSession != "" {
		return t.ClaudeTeamSession
	}
	return t.LeadSessionID
}

// Member returns the member called name.
func (t *Team) Member(name string) (*Member, bool) {
	for i := range t.Members {
		if t.Members[i].Name == name {
			return &t.Members[i], true
		}
	}
	return nil, false
}

// Running reports whether the team was brought up and not brought down.
func (t *Team) Running() bool { return t.StoppedAt == nil }

// Root is the folder holding every team's state.
func Root() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find state folder: %w (set HOME or XDG_STATE_HOME)", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "teamctl"), nil
}

var teamName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)

// ValidTeamName reports whether name may be a team's name (and so a folder name).
func ValidTeamName(name string) bool { return teamName.MatchString(name) }

// Dir is the team's state folder. The name is validated before it becomes a path.
func Dir(team string) (string, error) {
	if !ValidTeamName(team) {
		return "", fmt.Errorf("invalid team name %q: use 1-40 of a-z, 0-9 and -, starting with a letter or digit", team)
	}
	root, err := Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, team), nil
}

// EnsureDir creates the team's state folder (0700) and makes sure it and the
// state root are real folders (not symlinks), owned by the user and writable by
// no one else: teamctl writes, locks and removes files in them.
func EnsureDir(team string) (string, error) {
	dir, err := Dir(team)
	if err != nil {
		return "", err
	}
	if err := EnsureRoot(); err != nil {
		return "", err
	}
	if err := safefile.EnsureDir(dir, "state folder", 0o700); err != nil {
		return "", err
	}
	return dir, nil
}

// SocketName is the name (tmux -L) of the team's private tmux server. It is
// derived from the team's name, never taken from state.json, so that an edited
// file cannot point teamctl at another server.
func SocketName(team string) string { return "teamctl-" + team }

// SocketPath is where tmux puts the team's socket: $TMUX_TMPDIR (default /tmp)
// /tmux-UID/SocketName(team), as tmux.SocketPath says for that name (a test
// keeps the two equal; state does not run tmux).
func SocketPath(team string) string {
	dir := os.Getenv("TMUX_TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	return fmt.Sprintf("%s/tmux-%d/%s", strings.TrimRight(dir, "/"), os.Getuid(), SocketName(team))
}

// EnsureRoot creates the state root (0700; the folders above it as needed) and
// checks it as EnsureDir does. The folders above are the user's to choose
// ($XDG_STATE_HOME may well be a link), so only the root itself is checked.
func EnsureRoot() error {
	root, err := Root()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(root), 0o700); err != nil {
		return fmt.Errorf("create state folder: %w", err)
	}
	return safefile.EnsureDir(root, "state folder", 0o700)
}

// ErrNotFound means the team has no state.
var ErrNotFound = errors.New("no such team")

// ErrMismatch means state.json says something about its team that is not so:
// its team name, socket or session differ from the ones derived from the
// folder's name. teamctl then uses nothing of the file.
var ErrMismatch = errors.New("does not match its team")

// check compares what the file says of its team with what is derived from the
// folder's name, so that an edited state.json never makes teamctl signal or
// remove anything outside the team's own server.
func (t *Team) check(team, path string) error {
	for _, f := range []struct{ field, got, want, hint string }{
		{"team", t.Team, team, "fix or remove the file"},
		{"socket", t.Socket, SocketName(team), "fix or remove the file"},
		{"socket_path", t.SocketPath, SocketPath(team), "was the team brought up with another TMUX_TMPDIR? else fix or remove the file"},
		{"session", t.Session, team, "fix or remove the file"},
	} {
		if f.got != f.want {
			return fmt.Errorf("%s: field %q is %q, not team %s's own %q (%s): %w", path, f.field, f.got, team, f.want, f.hint, ErrMismatch)
		}
	}
	return nil
}

// Load reads a team's state. A file whose team, socket, socket path or session
// is not the team's own (ErrMismatch) is an error naming the file and the field.
func Load(team string) (*Team, error) {
	dir, err := Dir(team)
	if err != nil {
		return nil, err
	}
	b, err := readNoFollow(filepath.Join(dir, "state.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("team %q: %w (no %s)", team, ErrNotFound, filepath.Join(dir, "state.json"))
	}
	if err != nil {
		return nil, fmt.Errorf("read state of team %q: %w", team, err)
	}
	var t Team
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("read state of team %q: %s: %w", team, filepath.Join(dir, "state.json"), err)
	}
	if t.Version > Version {
		return nil, fmt.Errorf("state of team %q has format %d; this teamctl reads up to %d", team, t.Version, Version)
	}
	if err := t.check(team, filepath.Join(dir, "state.json")); err != nil {
		return nil, err
	}
	return &t, nil
}

// MaxStateFileBytes is the most of a team's state.json or live.json teamctl
// reads: a team of thousands of members is a few MiB. Agents can write the
// state folder: a larger file is refused, not read into memory.
const MaxStateFileBytes = 64 << 20

// readNoFollow reads a file of the team's state folder, refusing a symlink
// (state.json says which pids `down` signals, so it is read only from the
// file teamctl wrote), anything but a regular file (a FIFO would hold the
// read forever) and a file over MaxStateFileBytes.
func readNoFollow(path string) ([]byte, error) {
	return safefile.ReadFile(path, MaxStateFileBytes)
}

// Save writes a team's state atomically, with the socket and session derived
// from its name.
func Save(t *Team) error {
	dir, err := EnsureDir(t.Team)
	if err != nil {
		return err
	}
	t.Version = Version
	t.Socket, t.SocketPath, t.Session = SocketName(t.Team), SocketPath(t.Team), t.Team
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	return atomicfile.WriteFile(filepath.Join(dir, "state.json"), append(b, '\n'), 0o600)
}

// List returns the names of all teams with state, sorted.
func List() ([]string, error) {
	root, err := Root()
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list teams: %w", err)
	}
	var names []string
	for _, e := range ents {
		if !e.IsDir() || !ValidTeamName(e.Name()) {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, e.Name(), "state.json")); err == nil {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// RawStates returns the bytes of every team's state.json that can be read,
// whether it loads or not (a newer format, a mismatch): for a search that
// must miss nothing any of them names (selfexe keeps the copies of teamctl
// that members' argv and hooks name).
func RawStates() [][]byte {
	teams, err := List()
	if err != nil {
		return nil
	}
	var out [][]byte
	for _, team := range teams {
		if dir, err := Dir(team); err == nil {
			if b, err := readNoFollow(filepath.Join(dir, "state.json")); err == nil {
				out = append(out, b)
			}
		}
	}
	return out
}

// Lock takes the team's exclusive lock (flock on a file in its state folder), so
// that two `up` or `down` runs for one team never interleave. The lock goes with
// the process, so a crashed holder never leaves it stuck. clean removes the
// state folder, lock file and all, while it holds the lock: a lock taken on a
// file that is no longer the folder's lock file is let go and taken again on
// the one there now, so two holders never hold two different files.
func Lock(ctx context.Context, team string) (unlock func(), err error) {
	for {
		unlock, err := lockOnce(ctx, team)
		if err != nil || unlock != nil {
			return unlock, err
		}
	}
}

// lockOnce is Lock, once: nil, nil when the file locked was removed or
// replaced meanwhile.
func lockOnce(ctx context.Context, team string) (unlock func(), err error) {
	dir, err := EnsureDir(team)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "lock")
	f, err := safefile.Open(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		// A read-only folder still lets the lock file be opened to read, and
		// flock needs no more: the lock holds all the same.
		var rerr error
		if f, rerr = safefile.Open(path, os.O_RDONLY, 0); rerr != nil {
			return nil, fmt.Errorf("lock team %q: %w", team, err)
		}
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			held, err1 := f.Stat()
			now, err2 := os.Lstat(path)
			if err1 == nil && err2 == nil && os.SameFile(held, now) {
				return func() { f.Close() }, nil
			}
			f.Close()
			if ctx.Err() != nil {
				return nil, fmt.Errorf("lock team %q: %w", team, ctx.Err())
			}
			return nil, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock team %q: %w", team, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock team %q: another teamctl holds it: %w", team, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// PanesLeadFirst are the members' pane ids, the lead's first: what finds the
// team's session on its server.
func (t *Team) PanesLeadFirst() []string {
	var ids []string
	for _, m := range t.Members {
		if m.Role == RoleLead {
			ids = append([]string{m.Pane}, ids...)
		} else {
			ids = append(ids, m.Pane)
		}
	}
	return ids
}
