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

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor"
	"github.com/teamctl/teamctl/tmux"
)

// claudeFolders plans Claude Code's folders of a teamctl team: teams/<name>,
// then tasks/<name>, for the lead's session-… team and for the team's own name,
// once every worktree is gone (the team config names Claude Code's worktrees).
func (p *planner) claudeFolders(team string, st *state.Team, wts []*Action) []*Action {
	configDir := st.ClaudeConfig
	if configDir == "" {
		configDir, _ = claudecode.ConfigDir()
	}
	if configDir == "" {
		return nil
	}
	var acts []*Action
	for _, name := range dedupe(st.ClaudeTeam, team) {
		teamDir, err1 := claudecode.TeamDir(configDir, name)
		tasksDir, err2 := claudecode.TasksDir(configDir, name)
		if err1 != nil || err2 != nil {
			continue
		}
		if cfg, err := claudecode.ReadTeamConfig(filepath.Join(teamDir, "config.json")); err == nil && cfg.LeadProcess != nil &&
			!pidGone(cfg.LeadProcess.PID, cfg.LeadProcess.ProcStart) && name != st.ClaudeTeam {
			// A Claude Code lead of that name runs outside teamctl: not ours.
			p.note("%s: its lead (pid %d) is running; left alone", teamDir, cfg.LeadProcess.PID)
			continue
		}
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
			if err := supervisor.StopSupervisor(ctx, team, 5*time.Second); err != nil {
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
					supervisor.EndStrays(ctx, sockPath, p.o.Grace)
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
		var wts []*Action
		for _, w := range claudeWorktrees(configDir, name) {
			wts = append(wts, p.worktree(ctx, name, owned{Worktree: state.Worktree{Path: w}}, nil))
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

func dedupe(names ...string) []string {
	var out []string
	for _, n := range names {
		if n != "" && (len(out) == 0 || out[len(out)-1] != n) {
			out = append(out, n)
		}
	}
	return out
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
