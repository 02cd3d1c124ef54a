package supervisor

import (
	"context"
	"fmt"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// resumes reports whether member m relaunches with --resume: it has a session
// of its own (a teammate recorded by an older teamctl has none) under which
// Claude Code stored a conversation.
func resumes(st *state.Team, m *state.Member) bool {
	return (m.Role == state.RoleLead || m.Role == state.RoleTeammate) && m.SessionID != "" &&
		claudecode.SessionExists(st.ClaudeConfig, m.SessionID)
}

// relaunchArgs is the tmux command that relaunches a member in its own pane
// with the argv, environment and folder it was started with; the lead and the
// teammates resume their conversation (--resume) when Claude Code stored it,
// rather than starting a new session under the same id (which Claude Code
// refuses).
func relaunchArgs(st *state.Team, m *state.Member) []string {
	argv := m.Argv
	if resumes(st, m) {
		argv = resumeArgv(m)
	}
	args := []string{"respawn-pane", "-k", "-t", m.Pane, "-c", tmux.EscapeFormat(m.Cwd)}
	args = append(args, envFlags(m.Env)...)
	return append(args, tmux.CommandArgs(argv)...)
}

// deliverPrompt leaves a teammate's layout prompt in its mailbox again: a
// relaunched teammate that does not resume is a new Claude Code session that
// has not seen it.
func deliverPrompt(ctx context.Context, st *state.Team, l *layouts.Layout, name string) error {
	if l == nil {
		return nil
	}
	for _, lm := range l.Members {
		if lm.Name != name || lm.Prompt == "" {
			continue
		}
		inbox, err := claudecode.InboxPath(st.ClaudeConfig, st.ClaudeTeam, name)
		if err != nil {
			return err
		}
		if _, err := ensureTeamConfig(st, lm.Cwd); err != nil {
			return err
		}
		mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err = claudecode.AppendMessage(mctx, inbox, claudecode.PromptMessage(lm.Prompt, time.Now()))
		cancel()
		return err
	}
	return nil
}

// RestartMember relaunches one member of a running team in its own pane,
// running or not, as the supervisor would after an exit: `teamctl restart`. A
// failed member starts again with a clean crash-loop window (the supervisor
// sees its pane's new process). Teammates the lead spawned are the lead's to
// restart, not teamctl's.
func RestartMember(ctx context.Context, team, member, tmuxBin string) (pid int, err error) {
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
	if m.Role == state.RoleTeammate && !resumes(st, m) {
		l, _ := layouts.Parse(st.LayoutPath) // an unreadable layout: no prompt to give again
		if err := deliverPrompt(ctx, st, l, m.Name); err != nil {
			return 0, fmt.Errorf("give %s its prompt again: %w", member, err)
		}
	}
	var b tmux.Batch
	b.Add(relaunchArgs(st, m)...)
	if _, err := srv.RunBatch(ctx, &b); err != nil {
		if isNoServer(err) {
			return 0, fmt.Errorf("team %s's tmux server is gone: `teamctl up %s` brings it back", team, st.LayoutPath)
		}
		return 0, fmt.Errorf("restart %s: %w", member, err)
	}
	panes, err := srv.ListPanes(ctx)
	if err != nil {
		return 0, err
	}
	for _, p := range panes {
		if p.ID == m.Pane {
			pid = p.PID
		}
	}
	m.PID, m.StartedAt = pid, time.Now().UTC()
	st.UpdatedAt = m.StartedAt
	if err := state.Save(st); err != nil {
		return pid, err
	}
	ev, err := OpenEventLog(team)
	if err != nil {
		return pid, err
	}
	defer ev.Close()
	return pid, ev.Append(Event{Kind: EventRestart, Member: member, Pane: m.Pane, Detail: fmt.Sprintf("by a person (teamctl restart); pid %d", pid)})
}
