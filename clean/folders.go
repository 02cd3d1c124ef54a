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

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// claudeTeamOf is the Claude Code team teamctl recorded for a team (the lead's
// session-… team) and the config folder it is in, while it is still that
// team's: named after the team's lead session, with no config.json or one
// naming that lead session (or the team the lead moved to, with the
// leadSessionId recorded for it). Otherwise name is "" and why says why (a team of
// that name someone else made is not teamctl's to remove).
func claudeTeamOf(st *state.Team) (configDir, name, why string) {
	if st.ClaudeTeam == "" {
		return "", "", ""
	}
	// The lead's session names its team, unless the supervisor followed the
	// lead to a team it claimed under another name (team-moved), whose
	// leadSessionId state.json then records.
	leadSession := st.LeadSessionID
	if want := claudecode.LeadTeamName(st.LeadSessionID); st.LeadSessionID == "" || st.ClaudeTeam != want {
		if st.ClaudeTeamSession == "" {
			return "", "", fmt.Sprintf("state.json's claude_team %q is not its lead session's (%q)", st.ClaudeTeam, want)
		}
		leadSession = st.ClaudeTeamSession
	}
	configDir = st.ClaudeConfig
	if configDir == "" {
		configDir, _ = claudecode.ConfigDir()
	}
	if configDir == "" || !filepath.IsAbs(configDir) {
		return "", "", fmt.Sprintf("no Claude Code config folder for %s", st.ClaudeTeam)
	}
	path, err := claudecode.TeamConfigPath(configDir, st.ClaudeTeam)
	if err != nil {
		return "", "", err.Error()
	}
	cfg, err := claudecode.ReadTeamConfig(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", "", fmt.Sprintf("%s cannot be read: %v", path, err)
	case cfg.LeadSessionID != leadSession:
		return "", "", fmt.Sprintf("%s names lead session %q, not the team's %s", path, cfg.LeadSessionID, leadSession)
	}
	return configDir, st.ClaudeTeam, ""
}

// claudeLife is one of a team's Claude Code teams, by name, in its config folder.
type claudeLife struct{ configDir, name string }

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
			do: func(context.Context) error { return removeOwned(teamDir, filepath.Join(configDir, "teams")) }})
		acts = append(acts, folder)
	}
	if exists(tasksDir) {
		needs := wts
		if folder != nil {
			needs = append(append([]*Action{}, wts...), folder)
		}
		acts = append(acts, p.add(&Action{Step: StepTasks, Team: team, Target: tasksDir, Why: "Claude Code's task folder of " + team, needs: needs,
			do: func(context.Context) error { return removeOwned(tasksDir, filepath.Join(configDir, "tasks")) }}))
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
			unlock, err := state.Lock(ctx, team)
			if err != nil {
				return err
			}
			defer unlock()
			return removeOwned(dir, root)
		}})
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
			if wp := p.worktree(ctx, name, owned{Worktree: state.Worktree{Path: w}}, nil, nil); !wp.a.notOurs {
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
