package team

import (
	"context"
	"fmt"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// restartMember relaunches one member of a running team in its own pane,
// running or not, as the supervisor would after an exit: `teamctl restart`,
// counted in the member's restarts as the supervisor's are. A
// failed member starts again with a clean crash-loop window (the supervisor
// sees its pane's new process). Teammates the lead spawned are the lead's to
// restart, not teamctl's.
func restartMember(ctx context.Context, team, member, tmuxBin string) (pid int, err error) {
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
	srv := &tmux.Server{Socket: state.SocketName(team), Bin: tmuxBin}
	// The running one ends first: what it leaves (its stored conversation, a
	// prompt it read) is what the new run starts from.
	panes, err := srv.ListPanes(ctx)
	if err != nil {
		if isNoServer(err) {
			return 0, fmt.Errorf("team %s's tmux server is gone: `teamctl up %s` brings it back", team, st.LayoutPath)
		}
		return 0, fmt.Errorf("restart %s: %w", member, err)
	}
	for _, p := range panes {
		if p.ID == m.Pane {
			if _, err := clearForRelaunch(ctx, srv, st, m, p, nil); err != nil {
				return 0, fmt.Errorf("restart %s: %w", member, err)
			}
		}
	}
	// One that resumes its stored conversation has had its prompt.
	claudeDir := ClaudeConfigDir(st)
	resume := claudecode.SessionExists(claudeDir, m.SessionID)
	if m.Role == state.RoleTeammate && !resume {
		l, _ := layouts.Parse(st.LayoutPath) // an unreadable layout: no prompt to give again
		if prompt := l.PromptOf(m.Name); prompt != "" {
			if _, err := claudecode.EnsureTeamConfig(claudeDir, st.ClaudeTeam, st.ClaudeLeadSession(), m.Cwd, time.Now()); err != nil {
				return 0, err
			}
			if err := claudecode.DeliverPrompt(ctx, claudeDir, st.ClaudeTeam, m.Name, prompt); err != nil {
				return 0, err
			}
		}
	}
	np, err := srv.ReplacePane(ctx, m.Pane, m.Cwd, m.Env, launch.RelaunchArgv(m, resume), m.Name)
	if err != nil {
		if isNoServer(err) {
			return 0, fmt.Errorf("team %s's tmux server is gone: `teamctl up %s` brings it back", team, st.LayoutPath)
		}
		return 0, fmt.Errorf("restart %s: %w", member, err)
	}
	l, _ := layouts.Parse(st.LayoutPath) // nil when unreadable: no colour
	var b tmux.Batch
	for _, c := range launch.Decoration(np.ID, m.Name, l.ColorOf(m.Name)) {
		b.Add(c...)
	}
	srv.RunBatch(ctx, &b) // a pane without its title still works
	pid = np.PID
	// A person's restart is a restart: counted as the supervisor counts its
	// own, so that status and the event say how often the member started again.
	m.Restarts++
	m.Pane, m.Window, m.PID, m.StartedAt = np.ID, np.Window, pid, time.Now().UTC()
	st.UpdatedAt = m.StartedAt
	if err := state.Save(st); err != nil {
		return pid, err
	}
	ev, err := state.OpenEventLog(team)
	if err != nil {
		return pid, err
	}
	defer ev.Close()
	return pid, ev.Append(state.Event{Kind: state.EventRestart, Member: member, Pane: m.Pane, Restarts: m.Restarts, Detail: fmt.Sprintf("(by a person) pid %d", pid)})
}
