package supervisor

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/safefile"
	"github.com/teamctl/teamctl/state"
)

// leadQueuePath is where `teamctl send lead` leaves text for the supervisor,
// which types it into the lead's pane once the lead is idle (a lead that spawned
// no teammates does not read its inbox).
func leadQueuePath(team string) (string, error) {
	dir, err := state.Dir(team)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "lead-queue.jsonl"), nil
}

// Send gives text to a member: a teammate finds it in its mailbox as a message
// from team-lead (which starts a turn, as Claude Code's own lead does it); the
// lead gets it typed into its pane by the supervisor while it is idle. It says
// how the text went.
func Send(ctx context.Context, team, member, text string) (string, error) {
	if strings.TrimSpace(text) == "" {
		return "", errors.New("nothing to send: the text is empty")
	}
	st, err := loadRunning(team)
	if err != nil {
		return "", err
	}
	m, ok := st.Member(member)
	if !ok {
		return "", fmt.Errorf("team %s has no member %q", team, member)
	}
	ev, err := OpenEventLog(team)
	if err != nil {
		return "", err
	}
	defer ev.Close()
	switch m.Role {
	case state.RoleProcess:
		return "", fmt.Errorf("%s is a plain process, not Claude Code: type into it with `teamctl answer %s KEYS...`", member, member)
	case state.RoleLead:
		if pid, _ := SupervisorPID(team); pid == 0 {
			return "", fmt.Errorf("no supervisor runs for team %s to type into the lead when it is idle: `teamctl up` starts it", team)
		}
		p, err := leadQueuePath(team)
		if err != nil {
			return "", err
		}
		f, err := safefile.Open(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return "", fmt.Errorf("queue for the lead: %w", err)
		}
		b, _ := json.Marshal(map[string]string{"text": text})
		_, err = f.Write(append(b, '\n'))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", fmt.Errorf("queue for the lead: %w", err)
		}
		return "queued for the lead: typed into its pane when it is idle", nil
	}
	inbox, err := claudecode.InboxPath(st.ClaudeConfig, st.ClaudeTeam, member)
	if err != nil {
		return "", err
	}
	mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := claudecode.AppendMessage(mctx, inbox, claudecode.PromptMessage(text, time.Now())); err != nil {
		return "", fmt.Errorf("send to %s: %w", member, err)
	}
	ev.Append(Event{Kind: EventMessage, Member: member, Pane: m.Pane, Detail: "from teamctl send: " + short(text, 200)})
	return "left in its mailbox as a message from team-lead", nil
}

// readLeadQueue takes what `send lead` queued since the last read and hands it
// to the notifier, which types it when the lead is idle.
func (s *sup) readLeadQueue(ctx context.Context) {
	p, err := leadQueuePath(s.team)
	if err != nil {
		return
	}
	f, err := os.Open(p)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() < s.live.LeadQueueOffset {
		s.live.LeadQueueOffset = 0
	}
	if _, err := f.Seek(s.live.LeadQueueOffset, io.SeekStart); err != nil {
		return
	}
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			break // a partial last line waits for its newline
		}
		s.live.LeadQueueOffset += int64(len(line))
		var q struct{ Text string }
		if json.Unmarshal(line, &q) == nil && q.Text != "" {
			s.notifier.queue(ctx, q.Text, "typed into the lead (teamctl send): ")
		}
	}
}

// Inbox returns a member's mailbox; for the lead, the one teammates write to.
func Inbox(team, member string) ([]claudecode.Message, error) {
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
	p, err := claudecode.InboxPath(st.ClaudeConfig, st.ClaudeTeam, name)
	if err != nil {
		return nil, err
	}
	msgs, err := claudecode.ReadMailbox(p)
	if msgs == nil {
		msgs = []claudecode.Message{}
	}
	return msgs, err
}
