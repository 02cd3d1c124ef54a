package team

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/relaunch"
	"github.com/teamctl/teamctl/stallwatch"
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
	switch {
	case m.Agent != "":
		// Sent by the lead (its Bash tool runs teamctl send): the answer
		// at the end of the member's next turn is typed into the lead
		// (teamctl hook, state.OweAnswer). Recorded first: a short turn
		// may end before typeInto returns.
		lead := leadAsking(st)
		if lead != "" && lead != member {
			if err := state.OweAnswer(team, member, lead, oneLine(text)); err != nil {
				return "", err
			}
		}
		if err := t.typeInto(ctx, m, text); err != nil {
			if lead != "" {
				state.DropOwedAnswer(team, member) // nothing was sent: nothing is owed
			}
			return "", err
		}
		ev.Append(t.by.mark(state.Event{Kind: state.EventMessage, Member: member, Pane: m.Pane, Detail: t.by.sent() + textsafe.Short(text, 200)}))
		if lead != "" {
			return fmt.Sprintf("typed into its pane, and taken; its answer is typed into %s when its turn ends", lead), nil
		}
		return "typed into its pane, and taken", nil
	case m.Role == state.RoleProcess:
		return "", fmt.Errorf("%s is a plain process, not Claude Code: type into it with `teamctl answer %s KEYS...`", member, member)
	case m.Role == state.RoleLead:
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

// typeInto types text into the pane of m, a member running another agent
// CLI, as it takes text: the text alone, then, once its input line shows
// it, Enter; and Enter again while the input line still holds it (both
// Codex and Gemini took an Enter that came with the text as part of a
// paste, and left the text unsent: docs/codex.md, docs/gemini.md). Each
// wait is for what the screen shows, within typeWait.
func (t *Team) typeInto(ctx context.Context, m *state.Member, text string) error {
	srv := t.srv()
	text = oneLine(text) // a newline would submit early
	holds := func() (bool, error) {
		s, err := srv.CapturePane(ctx, m.Pane)
		return err == nil && stallwatch.ComposerHolds(m.Agent, s, text), err
	}
	if ok, err := holds(); err != nil {
		return fmt.Errorf("send to %s: look at its screen: %w", m.Name, err)
	} else if ok {
		return fmt.Errorf("not sent: %s's input line holds that text already (unsent): attach and look", m.Name)
	}
	// What is typed before its input line is drawn is lost (a CLI starting,
	// a resumed one loading its session): wait for it, as a person would.
	if !t.waitScreen(ctx, typeWait, func() bool {
		s, err := srv.CapturePane(ctx, m.Pane)
		return err == nil && stallwatch.ComposerShown(m.Agent, s)
	}) {
		return fmt.Errorf("not sent: %s shows no input line after %s (still starting, or at a dialog): `teamctl status` says what it does; send again when it is idle", m.Name, typeWait)
	}
	if err := srv.TypeText(ctx, m.Pane, text); err != nil {
		return fmt.Errorf("send to %s: %w", m.Name, err)
	}
	if !t.waitScreen(ctx, typeWait, func() bool { ok, _ := holds(); return ok }) {
		return fmt.Errorf("send to %s: typed, but its input line never showed the text within %s (is it at its input box? teamctl attach %s)", m.Name, typeWait, m.Name)
	}
	for range typeEnters {
		if err := srv.Enter(ctx, m.Pane); err != nil {
			return fmt.Errorf("send to %s: %w", m.Name, err)
		}
		if t.waitScreen(ctx, enterWait, func() bool { ok, err := holds(); return err == nil && !ok }) {
			return nil
		}
	}
	return fmt.Errorf("send to %s: the text is in its input line, but %d Enters did not send it: teamctl attach %s", m.Name, typeEnters, m.Name)
}

// typeWait bounds the wait for typed text to show; enterWait, for an Enter
// to be taken (the input line emptied); typeEnters, how many Enters.
const (
	typeWait   = 10 * time.Second
	enterWait  = 2 * time.Second
	typeEnters = 3
)

// waitScreen waits until cond holds, looking again at growing intervals, for
// at most d; false when it never did (or ctx ended).
func (t *Team) waitScreen(ctx context.Context, d time.Duration, cond func() bool) bool {
	end := time.Now().Add(d)
	poll := 20 * time.Millisecond
	for {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(poll): // the interval of a condition's wait
		}
		poll = min(poll*3/2, 200*time.Millisecond)
	}
}

// leadAsking is the name of the team's lead when this process runs inside
// the lead's (its pane's process is one of this process's ancestors: the
// lead's Bash tool ran teamctl), else "". Ancestry, not an environment
// variable: any member could set TEAMCTL_MEMBER=lead.
func leadAsking(st *state.Team) string {
	for _, m := range st.Members {
		if m.Role == state.RoleLead && m.PID > 1 && proc.Lineage()[m.PID] {
			return m.Name
		}
	}
	return ""
}

// oneLine is text as it is typed into a Codex or Gemini member: on one line,
// each run of white space one space.
func oneLine(text string) string { return strings.Join(strings.Fields(text), " ") }
