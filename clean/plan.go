package clean

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/owned"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
	"github.com/teamctl/teamctl/worktrees"
)

const socketPrefix = "teamctl-"

// planner builds a Report.
type planner struct {
	o Options
	r *Report
	// claudeTeams are Claude Code team folders that belong to teamctl teams
	// (cleaned with them, never as Claude Code's own leftovers).
	claudeTeams map[string]bool
	// owners are the teams whose state.json records each Claude Code team
	// (state.ClaudeTeamOwners): one team's is never another's to remove.
	owners map[string][]string
	now    time.Time       // the time in this run's snapshot names
	snaps  []*snapshotPlan // one per worktree and its branch
}

func (p *planner) add(a *Action) *Action {
	if a.Result == "" {
		a.Result = Planned
	}
	p.r.Actions = append(p.r.Actions, a)
	return a
}

func (p *planner) note(format string, args ...any) {
	p.r.Notes = append(p.r.Notes, fmt.Sprintf(format, args...))
}

// Plan finds what is left over and decides, for each thing, what clean does.
// It changes nothing.
func Plan(ctx context.Context, o Options) (*Report, error) {
	if o.Team != "" && !state.ValidTeamName(o.Team) {
		return nil, fmt.Errorf("invalid team name %q", o.Team)
	}
	if o.Grace <= 0 {
		o.Grace = 2 * time.Second
	}
	// One plan reads each repository once (its worktree list, its branches'
	// teamctl records), however many worktrees and branches it weighs; a
	// plan made again under the teams' locks reads them again.
	ctx = worktrees.WithReads(ctx)
	p := &planner{o: o, r: &Report{DryRun: o.DryRun}, claudeTeams: map[string]bool{}, now: time.Now().UTC()}
	if o.Snapshots {
		if err := p.snapshotRefs(ctx); err != nil {
			return nil, err
		}
		settle(p.r)
		return p.r, nil
	}
	teams, err := knownTeams()
	if err != nil {
		return nil, err
	}
	if p.owners, err = state.ClaudeTeamOwners(); err != nil {
		return nil, err
	}
	for name := range p.owners {
		p.claudeTeams[name] = true
	}
	for _, team := range teams {
		if o.Team != "" && team != o.Team {
			continue
		}
		if err := p.team(ctx, team); err != nil {
			return nil, err
		}
	}
	if o.All {
		if err := p.claudeLeftovers(ctx); err != nil {
			return nil, err
		}
	}
	// Steps run in their order across teams: every pane before any server, and
	// so on, as a stable sort keeps each team's own order within a step.
	sort.SliceStable(p.r.Actions, func(i, j int) bool {
		return stepOrder(p.r.Actions[i].Step) < stepOrder(p.r.Actions[j].Step)
	})
	settle(p.r)
	return p.r, nil
}

var steps = []string{StepSupervisor, StepPane, StepServer, StepSnapshot, StepWorktree, StepBranch, StepTeamFolder, StepTasks, StepState}

func stepOrder(s string) int { return slices.Index(steps, s) }

// knownTeams are the teams with a state folder or a teamctl-* tmux socket.
func knownTeams() ([]string, error) {
	set := map[string]bool{}
	root, err := state.Root()
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(root)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list teams: %w", err)
	}
	for _, e := range ents {
		if e.IsDir() && state.ValidTeamName(e.Name()) {
			set[e.Name()] = true
		}
	}
	socks, _ := os.ReadDir(socketDir())
	for _, e := range socks {
		if t, ok := strings.CutPrefix(e.Name(), socketPrefix); ok && state.ValidTeamName(t) {
			set[t] = true
		}
	}
	return slices.Sorted(maps.Keys(set)), nil
}

func socketDir() string { return filepath.Dir(tmux.SocketPath("x")) }

// team plans the clean-up of one teamctl team.
func (p *planner) team(ctx context.Context, team string) error {
	st, err := state.Load(team)
	if err != nil && !errors.Is(err, state.ErrNotFound) {
		// Without its state nothing of the team can be told apart safely.
		p.note("team %s: %v; left alone", team, err)
		return nil
	}
	if errors.Is(err, state.ErrNotFound) {
		st = nil
	}
	socket := state.SocketName(team)
	srv := &tmux.Server{Socket: socket, Bin: p.o.TmuxBin}
	sockPath := state.SocketPath(team)
	_, sockErr := os.Lstat(sockPath)
	var panes []tmux.Pane
	serverUp := false
	if sockErr == nil {
		panes, err = srv.ListPanes(ctx)
		switch {
		case err == nil:
			serverUp = true
		case errors.Is(err, tmux.ErrNoServer):
		default:
			p.note("team %s: cannot ask its tmux server: %v; left alone", team, err)
			return nil
		}
	}
	var live []tmux.Pane
	for _, pn := range panes {
		if !pn.Dead && pn.PID > 0 && proc.Alive(pn.PID) {
			live = append(live, pn)
		}
	}
	byName := p.o.Team == team && !p.o.Found
	supPID, _ := state.SupervisorPID(team)

	if len(live) > 0 && st != nil && !byName {
		p.orphanPanes(team, st, srv, panes, supPID != 0)
		p.note("team %s is running: only its orphaned panes are cleaned (`teamctl clean %s` cleans it all)", team, team)
		return nil
	}

	// From here on the whole team goes.
	var ends map[int]bool // the processes of the team's panes, which clean ends first
	ours := func(pid int) bool {
		if ends == nil {
			ends = map[int]bool{}
			for _, pn := range live {
				for _, q := range proc.Tree(pn.PID) {
					ends[q] = true
				}
			}
		}
		return ends[pid]
	}
	var lives []claudeLife // the team's Claude Code teams, earlier lives first
	if st != nil {
		lives = p.claudeLives(team, st, ours)
	}
	var stop *Action
	if supPID != 0 {
		stop = p.add(&Action{Step: StepSupervisor, Team: team, Target: fmt.Sprintf("pid %d", supPID), Why: "its team is being cleaned",
			do: func(ctx context.Context) error { return stopSupervisor(ctx, team) }})
	}
	needStop := func() []*Action {
		if stop == nil {
			return nil
		}
		return []*Action{stop}
	}
	var paneActs []*Action
	why := "its team has no state"
	switch {
	case st != nil && byName:
		why = "its team was named"
	case st != nil:
		why = "its team is not running"
	}
	for _, pn := range live {
		paneActs = append(paneActs, p.paneAction(team, srv, pn, why, needStop()))
	}
	var server *Action
	switch {
	case serverUp:
		w := "no live processes"
		if st == nil {
			w = "no state for its team"
		}
		server = p.add(&Action{Step: StepServer, Team: team, Target: socket, Why: w, needs: append(needStop(), paneActs...),
			do: func(ctx context.Context) error {
				if err := srv.KillServer(ctx); err != nil {
					return err
				}
				proc.EndStrays(ctx, sockPath, p.o.Grace)
				return nil
			}})
	case sockErr == nil:
		server = p.add(&Action{Step: StepServer, Team: team, Target: socket, Why: "its server is gone; the socket file is left",
			do: func(context.Context) error { return removeSocket(sockPath) }})
	}
	if st == nil {
		return nil
	}
	before := append(needStop(), paneActs...)
	if server != nil {
		before = append(before, server)
	}
	wts := p.worktrees(ctx, team, st, lives, before)
	var wtOnly []*Action // Claude Code's team folder waits for the worktrees; the state for everything
	for _, a := range wts {
		if a.Step == StepWorktree {
			wtOnly = append(wtOnly, a)
		}
	}
	var folders []*Action
	for _, life := range lives {
		folders = append(folders, p.claudeFolders(team, life.configDir, life.name, wtOnly)...)
	}
	remote := p.hosts(ctx, team, st, before)
	p.stateFolder(team, append(append(append(before, wts...), folders...), remote...))
	return nil
}

// orphanPanes plans the panes of a running team that no member owns: a pane
// not in state, a member no longer in the layout, and a pane whose process
// exited that the supervisor will not restart.
func (p *planner) orphanPanes(team string, st *state.Team, srv *tmux.Server, panes []tmux.Pane, supervised bool) {
	byPane := map[string]state.Member{}
	for _, m := range st.Members {
		byPane[m.Pane] = m
	}
	var inLayout map[string]bool
	if l, err := owned.ParseLayout(st.LayoutPath); err == nil {
		inLayout = map[string]bool{}
		for _, m := range l.All() {
			inLayout[m.Name] = true
		}
	}
	live, _ := state.ReadLive(team) // whom the supervisor gave up on (never nil)
	failed := func(m state.Member) bool {
		lm := live.Members[m.Name]
		return lm != nil && lm.Pane == m.Pane && lm.State == state.StateFailed
	}
	for _, pn := range panes {
		m, known := byPane[pn.ID]
		var why string
		switch {
		case !known:
			why = "no member of the team has this pane"
		case m.Origin != state.OriginLead && inLayout != nil && !inLayout[m.Name]:
			why = fmt.Sprintf("member %s is no longer in the layout", m.Name)
		case pn.Dead && (!supervised || m.Origin == state.OriginLead || failed(m) || !launch.RestartWanted(m.Restart, pn.DeadStatus, pn.DeadSignal)):
			why = fmt.Sprintf("member %s exited and nothing restarts it", m.Name)
		default:
			continue
		}
		p.paneAction(team, srv, pn, why, nil)
	}
}

// paneAction ends a pane's process tree (SIGTERM, grace, SIGKILL), then kills
// the pane, and drops its member from the team's state.
func (p *planner) paneAction(team string, srv *tmux.Server, pn tmux.Pane, why string, needs []*Action) *Action {
	target := pn.ID
	if pn.Member != "" {
		target += " (" + pn.Member + ")"
	}
	return p.add(&Action{Step: StepPane, Team: team, Target: target, Why: why, needs: needs,
		do: func(ctx context.Context) error {
			if !pn.Dead && pn.PID > 0 {
				proc.EndTree(ctx, pn.PID, p.o.Grace)
			}
			if err := srv.KillPane(ctx, pn.ID); err != nil {
				return err
			}
			return forgetPane(ctx, team, pn.ID)
		}})
}

// forgetPane drops the member of pane from the team's state, if there is one.
func forgetPane(ctx context.Context, team, pane string) error {
	dir, err := state.Dir(team)
	if err != nil || !exists(filepath.Join(dir, "state.json")) {
		return nil // no state (and Lock would make the folder)
	}
	unlock, err := lockTeam(ctx, team)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := state.Load(team)
	if errors.Is(err, state.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	n := len(st.Members)
	st.Members = slices.DeleteFunc(st.Members, func(m state.Member) bool { return m.Pane == pane })
	if len(st.Members) == n {
		return nil
	}
	return state.Save(st)
}

// removeSocket removes the socket file a dead tmux server left.
func removeSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSocket == 0 {
		return fmt.Errorf("%s is not a socket; left alone", path)
	}
	return os.Remove(path)
}

// pidGone reports whether the process pid (started at start, when known) has ended.
func pidGone(pid int, start string) bool {
	if pid <= 0 || !proc.Alive(pid) {
		return true
	}
	if start == "" {
		return false
	}
	s, err := proc.StartTime(pid)
	return err == nil && s != start // the pid was reused
}

// stopSupervisor stops team name's supervisor, so that nothing restarts or
// writes what clean removes.
func stopSupervisor(ctx context.Context, name string) error {
	return state.StopSupervisor(ctx, name, 5*time.Second, proc.End)
}
