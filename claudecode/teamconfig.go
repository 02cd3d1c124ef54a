package claudecode

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/atomicfile"
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

// LeadProcess identifies the process that owns a team.
type LeadProcess struct {
	PID       int    `json:"pid"`
	PIDSpace  string `json:"pidSpace"`  // "vm#" + readlink /proc/self/ns/pid
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

// ReadTeamConfig reads and decodes a team config.
func ReadTeamConfig(path string) (*TeamConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c TeamConfig
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("team config %s: %w", path, err)
	}
	return &c, nil
}

// MinimalTeamConfig is the config Claude Code writes for a lead's implicit team at
// start-up: the lead process and one member, "team-lead".
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
			PIDSpace:  pidSpace(),
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

func pidSpace() string {
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	return "vm#" + ns
}

// procStart returns the start time (field 22 of /proc/PID/stat, in clock ticks since
// boot) that tells a process from a later one with the same pid.
func procStart(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// Field 2, the command, is in parentheses and may hold spaces; count after it.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// WriteTeamConfigIfMissing writes cfg to path unless a file is there already, which
// is never replaced (it may be the real lead's). It writes a temp file and hard-links
// it into place, so the existence check and the write are one atomic step.
func WriteTeamConfigIfMissing(path string, cfg TeamConfig) (written bool, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, fmt.Errorf("team config %s: %w", path, err)
	}
	if _, err := os.Lstat(path); err == nil {
		return false, nil
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return false, fmt.Errorf("team config %s: %w", path, err)
	}
	var r [8]byte
	rand.Read(r[:])
	tmp := path + ".new-" + hex.EncodeToString(r[:])
	if err := atomicfile.WriteFile(tmp, data, 0o600); err != nil {
		return false, err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, fmt.Errorf("team config %s: %w", path, err)
	}
	return true, nil
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
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var obj map[string]json.RawMessage
	return json.Unmarshal(data, &obj) == nil && obj != nil
}
