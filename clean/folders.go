package clean

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/teamctl/teamctl/agentstart"
	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// maxTeamConfig is the largest config.json clean reads: Claude Code's are a
// few KiB.
const maxTeamConfig = 1 << 20

// claudeLife is one of a team's Claude Code teams, by name, in its config folder.
type claudeLife struct{ configDir, name string }

// claudeLives are the Claude Code teams of team's lives that are its own to
// remove (claudeTeamOf), each once, in configDir, Claude Code's folder of the
// team. What is not is noted and left alone, and so is a folder state.json
// records that is not configDir. Claude Code's folder of the team is the one
// its layout and the environment clean runs in give (launch.TeamClaudeConfigDir),
// never state.json's claude_config, which anyone running as the user can
// rewrite to name any folder.
func (p *planner) claudeLives(name string, st *state.Team, ours func(pid int) bool) []claudeLife {
	configDir := launch.TeamClaudeConfigDir(st)
	var lives []claudeLife
	seen := map[string]bool{}
	for _, life := range st.Lives() {
		if rec := life.ClaudeConfig; rec != "" && filepath.Clean(rec) != filepath.Clean(configDir) && !seen["dir:"+rec] {
			seen["dir:"+rec] = true
			p.note("team %s: state.json names Claude Code's folder %q; only %q is looked in, the one its layout and this environment give (a folder is never taken from state.json)", name, rec, configDir)
		}
		claude, why := p.claudeTeamOf(name, life, configDir, ours)
		if why != "" {
			p.note("team %s: Claude Code's team %q is not its own to remove (%s); left alone", name, life.ClaudeTeam, why)
		}
		if claude != "" && !seen[claude] {
			seen[claude] = true
			lives = append(lives, claudeLife{configDir, claude})
		}
	}
	return lives
}

// claudeTeamOf is the Claude Code team one life of team records (the lead's
// session-… team), when it is the team's to remove from configDir. Every
// name state.json gives is checked first: the team's name is one Claude Code
// gives (session-<8 hex>, or the team's own name), named after the life's
// lead session — a UUID — unless the supervisor followed the lead to a team
// it claimed under another name (team-moved), whose leadSessionId, a UUID
// too, state.json then records. It is no other teamctl team's (no other
// state.json records it, now or in an earlier life). Its config.json, if
// there, names that lead session and no lead that runs, except a process of
// the team's own panes, which clean ends first (ours). Otherwise name is ""
// and why says why.
func (p *planner) claudeTeamOf(team string, life *state.Team, configDir string, ours func(pid int) bool) (name, why string) {
	claude := life.ClaudeTeam
	if claude == "" {
		return "", ""
	}
	if !claudecode.IsLeadTeamName(claude) && claude != team {
		return "", "not a name Claude Code gives a lead's team (session-<8 hex>)"
	}
	leadSession := life.LeadSessionID
	if !claudecode.ValidSessionID(leadSession) || claude != claudecode.LeadTeamName(leadSession) {
		if !claudecode.ValidSessionID(life.ClaudeTeamSession) {
			return "", fmt.Sprintf("it is not named after the lead session %q, and no session id of a team the lead moved to is recorded", leadSession)
		}
		leadSession = life.ClaudeTeamSession
	}
	if other := state.OwnedByAnother(p.owners, claude, team); other != "" {
		return "", "team " + other + "'s state.json records it too"
	}
	if configDir == "" || !filepath.IsAbs(configDir) {
		return "", fmt.Sprintf("no Claude Code config folder (%q is not an absolute path)", configDir)
	}
	path, err := claudecode.TeamConfigPath(configDir, claude)
	if err != nil {
		return "", err.Error()
	}
	cfg, err := readTeamConfig(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", err.Error()
	case cfg.LeadSessionID != leadSession:
		return "", fmt.Sprintf("%s names lead session %q, not the team's %s", path, cfg.LeadSessionID, leadSession)
	case cfg.LeadAlive() && !ours(cfg.LeadProcess.PID):
		return "", fmt.Sprintf("its lead process (pid %d) runs, and is none of the team's", cfg.LeadProcess.PID)
	}
	return claude, ""
}

// readTeamConfig reads a Claude Code team config that must be a plain file
// (not a link) of a config's size.
func readTeamConfig(path string) (*claudecode.TeamConfig, error) {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a plain file", path)
	case fi.Size() > maxTeamConfig:
		return nil, fmt.Errorf("%s is %d bytes, too large for a team config", path, fi.Size())
	}
	return claudecode.ReadTeamConfig(path)
}

// noLeadRuns is checked just before a Claude Code team's folder goes: by then
// the team's panes are ended, so a lead its config names that runs is someone
// else's — never removed from under it.
func noLeadRuns(configDir, name string) error {
	path, err := claudecode.TeamConfigPath(configDir, name)
	if err != nil {
		return err
	}
	cfg, err := readTeamConfig(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: left alone", err)
	}
	if cfg.LeadAlive() {
		return fmt.Errorf("%s names a lead process that runs (pid %d): left alone", path, cfg.LeadProcess.PID)
	}
	return nil
}

// claudeFolders plans Claude Code's folders of a teamctl team: teams/<name>,
// then tasks/<name>, for the lead's session-… team teamctl recorded (name,
// from claudeTeamOf; never a team only because it has the teamctl team's
// name), once every worktree is gone (the team config names Claude Code's
// worktrees).
func (p *planner) claudeFolders(team, configDir, name string, wts []*Action) []*Action {
	if name == "" {
		return nil
	}
	teamDir, err1 := claudecode.TeamDir(configDir, name)
	tasksDir, err2 := claudecode.TasksDir(configDir, name)
	if err1 != nil || err2 != nil {
		return nil
	}
	var acts []*Action
	var folder *Action
	if exists(teamDir) {
		folder = p.add(&Action{Step: StepTeamFolder, Team: team, Target: teamDir, Why: "Claude Code's team folder of " + team, needs: wts,
			do: func(context.Context) error {
				if err := noLeadRuns(configDir, name); err != nil {
					return err
				}
				return removeOwned(teamDir, filepath.Join(configDir, "teams"))
			}})
		acts = append(acts, folder)
	}
	if exists(tasksDir) {
		needs := wts
		if folder != nil {
			needs = append(append([]*Action{}, wts...), folder)
		}
		acts = append(acts, p.add(&Action{Step: StepTasks, Team: team, Target: tasksDir, Why: "Claude Code's task folder of " + team, needs: needs,
			do: func(context.Context) error {
				if err := noLeadRuns(configDir, name); err != nil {
					return err
				}
				return removeOwned(tasksDir, filepath.Join(configDir, "tasks"))
			}}))
	}
	return acts
}

// stateFolder plans the team's own state folder, last: while anything of the
// team stays, its record stays too.
func (p *planner) stateFolder(team string, before []*Action) {
	dir, err := state.Dir(team)
	if err != nil || !exists(dir) {
		return
	}
	root, _ := state.Root()
	p.add(&Action{Step: StepState, Team: team, Target: dir, Why: "teamctl's record of " + team, needs: before,
		do: func(ctx context.Context) error {
			// A supervisor started meanwhile would write here again.
			if err := stopSupervisor(ctx, team); err != nil {
				return err
			}
			// An up or down of the team in progress finishes first.
			unlock, err := lockTeam(ctx, team)
			if err != nil {
				return err
			}
			defer unlock()
			// What a Codex or Gemini member started may outlive its pane
			// and server (Codex's app-server daemon): found by its home,
			// in this folder, never by a process's name.
			agentstart.EndRunningIn(ctx, filepath.Join(dir, "agents"), p.o.Grace)
			return removeStateFolder(dir, root)
		}})
}

// removeStateFolder removes a team's state folder, which holds the team's
// lock file, under that lock: first moved aside in one rename (to a name no
// team has), then removed. An up waiting for the lock makes the folder and
// its lock file again as it retries; removed in place, such a new lock file
// turned up inside the folder being removed ("directory not empty") and that
// up went on while clean still worked; moved aside, the up gets a folder of
// its own and waits for no one.
func removeStateFolder(dir, root string) error {
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return removeOwned(dir, root) // gone, or a link: removeOwned says or removes the link
	}
	aside := filepath.Join(filepath.Dir(dir), fmt.Sprintf(".removed-%s-%d-%d", filepath.Base(dir), os.Getpid(), time.Now().UnixNano()))
	if err := os.Rename(dir, aside); err != nil {
		return removeOwned(dir, root)
	}
	return removeOwned(aside, root)
}

// claudeLeftovers plans Claude Code's own leftovers (with --all): tmux servers
// claude-swarm-<pid> whose lead is gone, and team folders whose lead process
// is dead, with their worktrees and task folders. Team folders go only with
// --force; without it they are listed as kept.
func (p *planner) claudeLeftovers(ctx context.Context) error {
	socks, _ := os.ReadDir(socketDir())
	for _, e := range socks {
		rest, ok := strings.CutPrefix(e.Name(), "claude-swarm-")
		pid, err := strconv.Atoi(rest)
		if !ok || err != nil || !pidGone(pid, "") {
			continue
		}
		socket := e.Name()
		srv := &tmux.Server{Socket: socket, Bin: p.o.TmuxBin}
		sockPath := tmux.SocketPath(socket)
		panes, err := srv.ListPanes(ctx)
		if err != nil && !errors.Is(err, tmux.ErrNoServer) {
			p.note("%s: %v; left alone", socket, err)
			continue
		}
		var acts []*Action
		for _, pn := range panes {
			if !pn.Dead && pn.PID > 0 {
				acts = append(acts, p.paneAction("claude-swarm", srv, pn, fmt.Sprintf("Claude Code's swarm server of lead pid %d, which is gone", pid), nil))
			}
		}
		up := err == nil
		p.add(&Action{Step: StepServer, Team: "claude-swarm", Target: socket, Why: fmt.Sprintf("Claude Code's swarm server; its lead (pid %d) is gone", pid), needs: acts,
			do: func(ctx context.Context) error {
				if up {
					if err := srv.KillServer(ctx); err != nil {
						return err
					}
					proc.EndStrays(ctx, sockPath, p.o.Grace)
				}
				return removeSocket(sockPath)
			}})
	}

	configDir, err := claudecode.ConfigDir()
	if err != nil {
		return nil
	}
	ents, _ := os.ReadDir(filepath.Join(configDir, "teams"))
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || p.claudeTeams[name] || !claudecode.ValidName(name) {
			continue
		}
		teamDir := filepath.Join(configDir, "teams", name)
		cfg, err := claudecode.ReadTeamConfig(filepath.Join(teamDir, "config.json"))
		if err != nil || cfg.LeadProcess == nil || !pidGone(cfg.LeadProcess.PID, cfg.LeadProcess.ProcStart) {
			continue
		}
		why := fmt.Sprintf("Claude Code team whose lead (pid %d) is gone", cfg.LeadProcess.PID)
		var wts []*Action // what the folder waits for: the worktrees that are the team's
		for _, w := range claudeWorktrees(configDir, name) {
			if wp := p.worktree(ctx, name, &candidate{Worktree: state.Worktree{Path: w}}, nil, nil, nil); !wp.a.notOurs {
				wts = append(wts, wp.a)
			}
		}
		folder := &Action{Step: StepTeamFolder, Team: name, Target: teamDir, Why: why, needs: wts,
			do: func(context.Context) error { return removeOwned(teamDir, filepath.Join(configDir, "teams")) }}
		acts := []*Action{folder}
		if tasksDir := filepath.Join(configDir, "tasks", name); exists(tasksDir) {
			acts = append(acts, &Action{Step: StepTasks, Team: name, Target: tasksDir, Why: why, needs: append(append([]*Action{}, wts...), folder),
				do: func(context.Context) error { return removeOwned(tasksDir, filepath.Join(configDir, "tasks")) }})
		}
		for _, a := range append(wts, acts...) {
			if !p.o.Force && (a.Result == Planned || a.Result == "") {
				a.Result, a.Detail = Kept, "Claude Code's own; --all --force removes it"
			}
		}
		for _, a := range acts {
			p.add(a)
		}
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
