package team

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/relaunch"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// restartMember relaunches one member of a running team in its own pane,
// running or not, as the supervisor would after an exit: `teamctl restart`,
// counted in the member's restarts as the supervisor's are. A
// failed member starts again with a clean crash-loop window (the supervisor
// sees its pane's new process). Teammates the lead spawned are the lead's to
// restart, not teamctl's.
func (t *Team) restartMember(ctx context.Context, member string) (pid int, err error) {
	team := t.Name
	unlock, err := state.Lock(ctx, team)
	if err != nil {
		return 0, err
	}
	defer unlock()
	st, err := loadRunning(team)
	if err != nil {
		return 0, err
	}
	m, ok := st.Member(member)
	if !ok {
		return 0, fmt.Errorf("team %s has no member %q", team, member)
	}
	if m.Origin == state.OriginLead {
		return 0, fmt.Errorf("%s was spawned by the lead, which restarts its own teammates; teamctl restarts only the layout's members", member)
	}
	// What it runs is decided before anything is ended: a launch that cannot
	// be relaunched leaves the member as it is.
	l, x, err := t.relaunchOf(st, m.Name)
	if err != nil {
		return 0, fmt.Errorf("restart %s: %w", member, err)
	}
	srv := t.srv()
	// The running one ends first: what it leaves (its stored conversation, a
	// prompt it read) is what the new run starts from.
	panes, err := srv.ListPanes(ctx)
	if err != nil {
		if isNoServer(err) {
			return 0, fmt.Errorf("team %s's tmux server is gone: `teamctl up %s` brings it back", team, st.LayoutPath)
		}
		return 0, fmt.Errorf("restart %s: %w", member, err)
	}
	// Only the member's pane as the server lists it is relaunched, never a
	// target state.json names that is not one of the team's panes.
	i := slices.IndexFunc(panes, func(p tmux.Pane) bool { return p.ID == m.Pane })
	if i < 0 {
		return 0, fmt.Errorf("restart %s: its pane %s is gone: `teamctl up %s` brings it back", member, m.Pane, st.LayoutPath)
	}
	if _, err := clearForRelaunch(ctx, t.w, srv, st, m, panes[i], nil); err != nil {
		return 0, fmt.Errorf("restart %s: %w", member, err)
	}
	// One that resumes its stored conversation has had its prompt.
	claudeDir := relaunch.ClaudeConfigDir(st)
	resume := relaunch.Resumes(claudeDir, t.Name, x)
	if err := relaunch.GivePrompt(ctx, claudeDir, st, m, x, resume, t.w.clock.Now()); err != nil {
		return 0, err
	}
	np, err := relaunch.InPlace(ctx, srv, m, x, resume)
	if err != nil {
		if isNoServer(err) {
			return 0, fmt.Errorf("team %s's tmux server is gone: `teamctl up %s` brings it back", team, st.LayoutPath)
		}
		return 0, fmt.Errorf("restart %s: %w", member, err)
	}
	relaunch.Decorate(ctx, srv, np.ID, m.Name, l.ColorOf(m.Name)) // a pane without its title still works
	pid = np.PID
	// A person's restart is a restart: counted as the supervisor counts its
	// own, so that status and the event say how often the member started again.
	relaunch.Record(m, x, np, t.w.clock.Now())
	st.UpdatedAt = m.StartedAt
	if err := state.Save(st); err != nil {
		return pid, err
	}
	ev, err := state.OpenEventLog(team)
	if err != nil {
		return pid, err
	}
	defer ev.Close()
	return pid, ev.Append(t.by.mark(state.Event{Kind: state.EventRestart, Member: member, Pane: m.Pane, Restarts: m.Restarts, Detail: t.by.restarted(pid)}))
}

// relaunchOf is member name's launch for a relaunch, and the layout it comes
// from (relaunch.Plan), with the programs found as up finds them:
// TEAMCTL_CLAUDE, and this teamctl for Claude Code's hooks.
func (t *Team) relaunchOf(st *state.Team, name string) (*layouts.Layout, launch.Launch, error) {
	self, err := t.w.teamctl()
	if err != nil {
		return nil, launch.Launch{}, err
	}
	return relaunch.Plan(st, name, os.Getenv("TEAMCTL_CLAUDE"), self)
}
