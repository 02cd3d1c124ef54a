package claudecode

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/teamctl/teamctl/internal/atomicfile"
	"github.com/teamctl/teamctl/internal/proc"
)

// TeamConfig is teams/TEAM/config.json as Claude Code 2.1.328 writes it. Times are
// Unix milliseconds. For a lead's implicit team Claude Code treats this file as its
// own runtime state: teamctl reads it, and writes one only where none exists.
type TeamConfig struct {
	Name          string       `json:"name"`
	Description   string       `json:"description,omitempty"`
	CreatedAt     int64        `json:"createdAt"`
	LeadAgentID   string       `json:"leadAgentId"`
	LeadSessionID string       `json:"leadSessionId"`
	LeadProcess   *LeadProcess `json:"leadProcess,omitempty"`
	Members       []TeamMember `json:"members"`
}

// LeadProcess identifies the process that owns (has claimed) a team. A Claude
// Code lead starting with a session whose team folder exists claims it only when
// this names a process that is gone, in its own pid space (see PlaceholderTeamConfig).
type LeadProcess struct {
	PID       int    `json:"pid"`
	PIDSpace  string `json:"pidSpace"`  // the host name, "#", readlink /proc/self/ns/pid
	ClaimedAt int64  `json:"claimedAt"` // Unix ms
	ProcStart string `json:"procStart"` // field 22 of /proc/PID/stat
}

// TeamMember is one entry of TeamConfig.Members. The lead is "team-lead" with
// tmuxPaneId "leader" and backendType "in-process"; teammates the lead spawned in
// tmux have a pane id like "%3" and backendType "tmux".
type TeamMember struct {
	AgentID       string            `json:"agentId"`
	Name          string            `json:"name"`
	AgentType     string            `json:"agentType,omitempty"`
	Model         string            `json:"model,omitempty"`
	Color         string            `json:"color,omitempty"`
	JoinedAt      int64             `json:"joinedAt"`
	TmuxPaneID    string            `json:"tmuxPaneId"`
	Cwd           string            `json:"cwd"`
	WorktreePath  string            `json:"worktreePath,omitempty"`
	Subscriptions []json.RawMessage `json:"subscriptions"` // seen only empty; raw so any content parses
	BackendType   string            `json:"backendType,omitempty"`
}

// ReadTeamConfig reads and decodes a team config (teams/TEAM/config.json). One
// over MaxTeamConfigBytes is a *TooLargeError and is not read; a symlink at it
// or at its team folder is a *LinkError. A missing one is fs.ErrNotExist.
func ReadTeamConfig(path string) (*TeamConfig, error) {
	data, err := readTeamConfigFile(path)
	if err != nil {
		return nil, err
	}
	var c TeamConfig
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("team config %s: %w", path, err)
	}
	return &c, nil
}

func readTeamConfigFile(path string) ([]byte, error) {
	if err := noLinksAbove(path, 1); err != nil {
		return nil, err
	}
	return readCapped(path, "team config", MaxTeamConfigBytes)
}

// MinimalTeamConfig is the config Claude Code writes for a lead's implicit team at
// start-up: the lead process (leadPID claims the team) and one member, "team-lead".
// It is what a lead writes for itself (the stand-in does); for a lead teamctl
// writes PlaceholderTeamConfig.
func MinimalTeamConfig(team, leadSessionID, cwd string, leadPID int, now time.Time) TeamConfig {
	ms := now.UnixMilli()
	leadID := LeadMailboxName + "@" + team
	return TeamConfig{
		Name:          team,
		CreatedAt:     ms,
		LeadAgentID:   leadID,
		LeadSessionID: leadSessionID,
		LeadProcess: &LeadProcess{
			PID:       leadPID,
			PIDSpace:  PIDSpace(),
			ClaimedAt: ms,
			ProcStart: procStart(leadPID),
		},
		Members: []TeamMember{{
			AgentID:       leadID,
			Name:          LeadMailboxName,
			AgentType:     LeadMailboxName,
			JoinedAt:      ms,
			TmuxPaneID:    "leader",
			Cwd:           cwd,
			Subscriptions: []json.RawMessage{},
			BackendType:   "in-process",
		}},
	}
}

// NoPID is a pid no Linux process can have (PID_MAX_LIMIT is 2^22): the
// leadProcess of a placeholder config, which so names a process that is gone.
const NoPID = 1<<22 + 1

// PlaceholderTeamConfig is the config teamctl writes for a lead that has none
// (a lead that is not Claude Code, or a Claude Code lead that is down while
// teammates run): MinimalTeamConfig whose leadProcess is NoPID in this pid space.
// A Claude Code lead that starts and finds a config claimed by a live process —
// even its own pid, written before it got there — or one without leadProcess,
// or with another pid space, claims a new team under another name instead; one
// whose leadProcess is gone it claims under the same name, taking the file over
// (seen with 2.1.328 and 2.1.332; docs/claude-code.md).
func PlaceholderTeamConfig(team, leadSessionID, cwd string, now time.Time) TeamConfig {
	cfg := MinimalTeamConfig(team, leadSessionID, cwd, NoPID, now)
	cfg.LeadProcess.ProcStart = "0" // no process started at boot; a mismatch even if NoPID ever existed
	return cfg
}

// EnsureTeamConfig writes the placeholder config.json into team's folder when
// it has none, before teamctl puts anything else there (a prompt into a
// mailbox): a folder without config.json sends a Claude Code lead that starts
// to another team, while a placeholder is one it takes over. It reports
// whether it wrote one.
func EnsureTeamConfig(configDir, team, leadSessionID, cwd string, now time.Time) (bool, error) {
	path, err := TeamConfigPath(configDir, team)
	if err != nil {
		return false, err
	}
	if _, err := os.Lstat(path); err == nil {
		return false, nil
	}
	return WriteTeamConfigIfMissing(path, PlaceholderTeamConfig(team, leadSessionID, cwd, now))
}

// IsPlaceholder reports whether c is a placeholder (no process has claimed it).
func (c *TeamConfig) IsPlaceholder() bool {
	return c.LeadProcess != nil && c.LeadProcess.PID == NoPID
}

// PIDSpace is Claude Code's name for this machine's pid namespace, as it
// writes it in leadProcess: os.hostname(), "#", readlink /proc/self/ns/pid
// (without the "#…" when that cannot be read). A leadProcess from another
// pid space is never taken as gone.
func PIDSpace() string {
	host, _ := os.Hostname()
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil || ns == "" {
		return host
	}
	return host + "#" + ns
}

// procStart returns the start time (field 22 of /proc/PID/stat, in clock ticks since
// boot) that tells a process from a later one with the same pid; "" when there is
// no such process.
func procStart(pid int) string {
	start, _ := proc.StartTime(pid)
	return start
}

// living is pid's start time (see procStart) when it runs now (neither a
// zombie nor gone), else "".
func living(pid int) string {
	st, err := proc.ReadStat(pid)
	if err != nil || !st.Living() {
		return ""
	}
	return st.StartTime
}

// LeadGone reports whether c names a lead process that is gone in this pid
// space — not running, a zombie, or another process under its pid — which is
// when Claude Code lets a lead of c's session take c over (the placeholder's
// NoPID is gone too).
func (c *TeamConfig) LeadGone() bool {
	lp := c.LeadProcess
	if lp == nil || lp.PIDSpace != PIDSpace() {
		return false
	}
	start := living(lp.PID)
	return start == "" || (lp.ProcStart != "" && lp.ProcStart != start)
}

// WriteTeamConfigIfMissing writes cfg to path unless a file is there already, which
// is never replaced (it may be the real lead's), nor written through a team
// folder that is a symlink (*LinkError). The existence check and the write
// are one atomic step (atomicfile.WriteNew).
func WriteTeamConfigIfMissing(path string, cfg TeamConfig) (written bool, err error) {
	if err := noLinksAbove(path, 1); err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, fmt.Errorf("team config %s: %w", path, err)
	}
	if err := noLinksAbove(path, 1); err != nil {
		return false, err // made a link meanwhile: the file would go where it points
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return false, fmt.Errorf("team config %s: %w", path, err)
	}
	return atomicfile.WriteNew(path, data, 0o600)
}

// WaitTeamConfig waits until path holds a complete JSON object (so a half-written
// file does not count) and returns ctx's error if that does not happen in time. It
// does not require the object to match TeamConfig, so that a newer Claude Code that
// changes a field's type still counts as having written its config.
func WaitTeamConfig(ctx context.Context, path string) error {
	// A stat every 2ms costs nothing measurable and is on `up`'s critical path:
	// every teammate waits for this file.
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		if TeamConfigReady(path) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for team config %s: %w", path, ctx.Err())
		case <-tick.C:
		}
	}
}

// TeamConfigReady reports whether path holds a complete JSON object now (see
// WaitTeamConfig).
func TeamConfigReady(path string) bool {
	data, err := readTeamConfigFile(path)
	if err != nil {
		return false
	}
	var obj map[string]json.RawMessage
	return json.Unmarshal(data, &obj) == nil && obj != nil
}

// TeamLockStale is how old Claude Code lets the lock on a team's config.json
// (config.json.lock, a directory proper-lockfile makes and its holder touches
// every 5 s) get before it takes it for one left behind: proper-lockfile's
// default, 10 s (read in 2.1.332's code).
const TeamLockStale = 10 * time.Second

// TeamLockPatience is how long teamctl holds a lead's start back for a lock
// on its team's config that something keeps fresh: after that it starts the
// lead anyway (and follows whatever team it claims).
const TeamLockPatience = 15 * time.Second

// TeamLockFresh is how much longer the lock on the team config at path stays
// fresh for Claude Code, now being now: 0 when there is none or it is stale
// already. A margin past TeamLockStale: Claude Code reads its own clock.
func TeamLockFresh(path string, now time.Time) time.Duration {
	fi, err := os.Lstat(path + ".lock")
	if err != nil {
		return 0 // none (or none we can see, as for Claude Code)
	}
	return max(fi.ModTime().Add(TeamLockStale+500*time.Millisecond).Sub(now), 0)
}

// WaitTeamConfigUnlocked waits, up to ctx, until no fresh lock sits on the
// team config at path: none, or one older than TeamLockStale. A lead that
// starts (--resume or --session-id) takes its team's config over under that
// lock, trying for about a second; finding it held, it claims a team under
// another name instead. A SIGKILL (a reboot, an OOM kill) that strikes while a
// member writes the config leaves the lock behind, fresh for 10 s (seen,
// 2.1.328 and 2.1.332). The lock is not removed: nothing says whose it is. It
// reports whether it had to wait.
func WaitTeamConfigUnlocked(ctx context.Context, path string) (waited bool, err error) {
	for {
		left := TeamLockFresh(path, time.Now())
		if left <= 0 {
			return waited, nil
		}
		waited = true
		// Looked at again at least every 250 ms: a holder that ends removes it.
		t := time.NewTimer(min(left, 250*time.Millisecond))
		select {
		case <-ctx.Done():
			t.Stop()
			return waited, fmt.Errorf("lock %s still held: %w", path+".lock", ctx.Err())
		case <-t.C:
		}
	}
}

// ClaimedTeam finds the team that the lead process pid claimed: the one
// folder under configDir/teams whose config.json names pid as leadProcess in
// this pid space with pid's own start time. A config without procStart, or
// with another, is no claim of pid's: anyone can write one naming any pid (an
// agent of the team can write any config.json). A process under the lead (a
// Claude Code its tools started) is not the lead either, so only pid itself
// counts. ok is false when no team names it, and when two do (only one is
// the lead's, and nothing tells which). Folders whose names are no ValidName,
// and files that are not plain files or are too large to be a config, are
// passed over (ReadTeamConfig).
func ClaimedTeam(configDir string, pid int) (name string, cfg *TeamConfig, ok bool) {
	start := procStart(pid)
	if pid <= 0 || start == "" {
		return "", nil, false
	}
	space := PIDSpace()
	ents, err := os.ReadDir(filepath.Join(configDir, "teams"))
	if err != nil {
		return "", nil, false
	}
	for _, e := range ents {
		if !e.IsDir() || !ValidName(e.Name()) {
			continue
		}
		c, err := ReadTeamConfig(filepath.Join(configDir, "teams", e.Name(), "config.json"))
		if err != nil || c.LeadProcess == nil || c.LeadProcess.PID != pid || c.LeadProcess.PIDSpace != space || c.LeadProcess.ProcStart != start {
			continue
		}
		if ok {
			return "", nil, false // claimed twice: one of them is not the lead's
		}
		name, cfg, ok = e.Name(), c, true
	}
	return name, cfg, ok
}

// LeadAlive reports whether c's leadProcess names a process that runs now:
// its pid is running (not a zombie) and, when procStart is given, started at
// that time. Without procStart a running pid counts as alive, since nothing
// tells it from the lead; the pid space is not looked at (a pid that runs
// here is taken for the lead whatever it says). Before removing a team's
// folders, a lead that runs is the one thing that must not be there.
func (c *TeamConfig) LeadAlive() bool {
	lp := c.LeadProcess
	if lp == nil || lp.PID <= 0 {
		return false
	}
	start := living(lp.PID)
	if start == "" {
		return false
	}
	return lp.ProcStart == "" || lp.ProcStart == start
}
