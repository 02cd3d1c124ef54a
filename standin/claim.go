package standin

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/atomicfile"
	"github.com/teamctl/teamctl/internal/proc"
)

// setUp plays the part of Claude Code's start-up that touches ~/.claude: a lead
// claims its implicit team (unless its script claims it later, with a claim
// step); a teammate finds its inbox.
func (a *agent) setUp(claimLater bool) {
	sid := a.o.sessionID
	if sid == "" {
		sid = a.o.resume
	}
	lead := sid != "" && a.o.agentName == "" && os.Getenv("CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS") == "1"
	teammate := a.o.agentName != "" && a.o.teamName != ""
	if !lead && !teammate {
		return
	}
	dir, err := claudecode.ConfigDir()
	if err != nil {
		a.println("stand-in: " + err.Error())
		return
	}
	if teammate {
		if a.inbox, err = claudecode.InboxPath(dir, a.o.teamName, a.o.agentName); err != nil {
			a.println("stand-in: " + err.Error())
			return
		}
		a.lead, _ = claudecode.InboxPath(dir, a.o.teamName, claudecode.LeadMailboxName)
		return
	}
	a.sid = sid
	if !claimLater {
		a.claim()
	}
}

// claim plays Claude Code's claim of a lead's implicit team, as 2.1.328 and
// 2.1.332 were seen to do it (docs/claude-code.md): teams/session-<first 8 of
// the session> when there is no such folder, or when its config.json names a
// leadProcess that is gone in this pid space (taken over: leadProcess
// replaced, the rest kept); otherwise — a folder without config.json, a config
// without leadProcess, one of another pid space or of a living process — a new
// team under another, random name and leadSessionId. Then the team's tasks
// folder, which Claude Code makes too.
func (a *agent) claim() {
	dir, err := claudecode.ConfigDir()
	if err != nil {
		a.println("stand-in: " + err.Error())
		return
	}
	cwd, _ := os.Getwd()
	team, sid := claudecode.LeadTeamName(a.sid), a.sid
	path, err := claudecode.TeamConfigPath(dir, team)
	if err == nil {
		var done bool
		if done, err = claimFolder(path, team, sid, cwd); err == nil && !done {
			team, sid = otherTeam()
			path, _ = claudecode.TeamConfigPath(dir, team)
			_, err = claudecode.WriteTeamConfigIfMissing(path, claudecode.MinimalTeamConfig(team, sid, cwd, os.Getpid(), time.Now()))
		}
	}
	if err != nil {
		a.println("stand-in: team config: " + err.Error())
		return
	}
	a.teamConfig, a.team = path, team
	if tasks, err := claudecode.TasksDir(dir, team); err == nil {
		os.MkdirAll(tasks, 0o700)
	}
}

// claimFolder claims the team whose config is at path when it is free,
// reporting whether it did.
func claimFolder(path, team, sid, cwd string) (bool, error) {
	if _, err := os.Lstat(filepath.Dir(path)); errors.Is(err, fs.ErrNotExist) {
		return claudecode.WriteTeamConfigIfMissing(path, claudecode.MinimalTeamConfig(team, sid, cwd, os.Getpid(), time.Now()))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return false, nil // a folder without config.json is taken
	}
	var cfg map[string]any
	if json.Unmarshal(data, &cfg) != nil {
		return false, nil
	}
	var lp claudecode.LeadProcess
	raw, _ := json.Marshal(cfg["leadProcess"])
	if cfg["leadProcess"] == nil || json.Unmarshal(raw, &lp) != nil || lp.PIDSpace != claudecode.PIDSpace() {
		return false, nil
	}
	if start, err := procStartOf(lp.PID); err == nil && (lp.ProcStart == "" || lp.ProcStart == start) {
		return false, nil // claimed by a living process (even this one, written before it got here)
	}
	cfg["leadProcess"] = claudecode.MinimalTeamConfig(team, sid, cwd, os.Getpid(), time.Now()).LeadProcess
	out, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return false, err
	}
	return true, atomicfile.WriteFile(path, out, 0o600)
}

// procStartOf is field 22 of /proc/PID/stat; an error when there is no such process.
func procStartOf(pid int) (string, error) {
	if pid <= 0 {
		return "", fs.ErrNotExist
	}
	return proc.StartTime(pid)
}

// otherTeam is a team of another, random name and its leadSessionId, as
// Claude Code makes when its own folder is taken.
func otherTeam() (team, sid string) {
	sid = claudecode.NewSessionID()
	return claudecode.LeadTeamName(sid), sid
}
