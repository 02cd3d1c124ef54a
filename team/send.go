package team

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/relaunch"
	"github.com/teamctl/teamctl/state"
)

// send gives text to a member: a teammate finds it in its mailbox as a message
// from team-lead (which starts a turn, as Claude Code's own lead does it); the
// lead gets it typed into its pane by the supervisor while it is idle, on one
// line (each newline or tab typed as a space: a newline would submit it
// early; a long text goes through a tmux paste buffer, whole). Text holding
// a control character, or over state.MaxLeadText, is refused, for either.
// It says how the text went.
func (t *Team) send(ctx context.Context, member, text string) (string, error) {
	team := t.Name
	if strings.TrimSpace(text) == "" {
		return "", errors.New("nothing to send: the text is empty")
	}
	if len(text) > state.MaxLeadText {
		// Typed through a paste buffer, a long text arrives whole; this
		// bound keeps one message from being a file's worth of input.
		return "", fmt.Errorf("not sent: the text is %d bytes, over the %d (1 MiB) a message may be; put it in a file and send its path", len(text), state.MaxLeadText)
	}
	if err := textsafe.CheckText(text); err != nil {
		// Typed into the lead's pane, it would be keys: shift-tab (\x1b[Z)
		// changes the permission mode, ^C interrupts, ^U clears the input.
		return "", fmt.Errorf("not sent: the text holds the control character %w; a message is text, with no control character but tab, newline and carriage return (an escape sequence, ^C or ^U would act as keys)", err)
	}
	st, err := loadRunning(team)
	if err != nil {
		return "", err
	}
	m, ok := st.Member(member)
	if !ok {
		return "", fmt.Errorf("team %s has no member %q", team, member)
	}
	ev, err := state.OpenEventLog(team)
	if err != nil {
		return "", err
	}
	defer ev.Close()
	switch m.Role {
	case state.RoleProcess:
		return "", fmt.Errorf("%s is a plain process, not Claude Code: type into it with `teamctl answer %s KEYS...`", member, member)
	case state.RoleLead:
		if pid, _ := state.SupervisorPID(team); pid == 0 {
			return "", fmt.Errorf("no supervisor runs for team %s to type into the lead when it is idle: `teamctl up` starts it", team)
		}
		if err := state.QueueForLead(team, text); err != nil {
			return "", err
		}
		return "queued for the lead: typed into its pane when it is idle", nil
	}
	claudeDir := relaunch.ClaudeConfigDir(st)
	inbox, err := claudecode.InboxPath(claudeDir, st.ClaudeTeam, member)
	if err != nil {
		return "", err
	}
	if _, err := claudecode.EnsureTeamConfig(claudeDir, st.ClaudeTeam, st.ClaudeLeadSession(), m.Cwd, t.w.clock.Now()); err != nil {
		return "", fmt.Errorf("send to %s: %w", member, err)
	}
	mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := claudecode.AppendMessage(mctx, inbox, claudecode.PromptMessage(text, t.w.clock.Now())); err != nil {
		return "", fmt.Errorf("send to %s: %w", member, err)
	}
	ev.Append(t.by.mark(state.Event{Kind: state.EventMessage, Member: member, Pane: m.Pane, Detail: t.by.sent() + textsafe.Short(text, 200)}))
	return "left in its mailbox as a message from team-lead", nil
}

// inbox returns a member's mailbox; for the lead, the one teammates write to.
func inbox(team, member string) ([]claudecode.Message, error) {
	st, err := state.Load(team)
	if err != nil {
		return nil, err
	}
	m, ok := st.Member(member)
	if !ok {
		return nil, fmt.Errorf("team %s has no member %q", team, member)
	}
	name := member
	switch m.Role {
	case state.RoleLead:
		name = claudecode.LeadMailboxName
	case state.RoleProcess:
		return nil, fmt.Errorf("%s is a plain process, not Claude Code: it has no mailbox (`teamctl attach %s` shows its screen)", member, member)
	}
	p, err := claudecode.InboxPath(relaunch.ClaudeConfigDir(st), st.ClaudeTeam, name)
	if err != nil {
		return nil, err
	}
	msgs, err := claudecode.ReadMailbox(p)
	if msgs == nil {
		msgs = []claudecode.Message{}
	}
	return msgs, err
}
