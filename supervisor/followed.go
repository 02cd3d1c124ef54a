package supervisor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/permrules"
	"github.com/teamctl/teamctl/state"
)

const (
	mailboxDebounce         = 20 * time.Millisecond
	maxSeenLeadInboxEntries = 5000
)

// followed are the files the daemon follows besides the panes, with
// fsnotify: the lead's inbox (teammates' permission requests, idle
// notifications, messages), the team's event log (answers `teamctl approve`
// and `deny` record, hooks), the lead queue (`teamctl send lead`), the lead's
// team config (members joining and leaving) and the tasks folder.
type followed struct {
	w           *fsnotify.Watcher
	leadInbox   string
	events      string
	eventsAt    state.EventCursor // how far the event log was read, across rotations
	queue       string
	config      string            // the lead's team config.json
	members     map[string]bool   // its members as last read, to report changes
	corruptMark string            // size and mtime of the lead inbox last reported corrupt
	tooLarge    bool              // the lead inbox was reported too large, and has not been read since
	tasks       map[string]string // task id → status, as last read
	tasksDir    string
	soon        *time.Timer
	fire        chan struct{}
	mu          sync.Mutex
	dirty       map[string]bool // which of the files changed since the last read
}

// take returns what changed since the last call (everything when all is set).
func (m *followed) take(all bool) map[string]bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.dirty
	m.dirty = map[string]bool{}
	if all {
		for _, k := range []string{"inbox", "events", "queue", "config", "tasks"} {
			d[k] = true
		}
	}
	return d
}

// follow starts watching; a team whose Claude Code files cannot be watched
// is still supervised through its screens (the error is logged).
func (s *daemon) follow() error {
	inbox, err := claudecode.InboxPath(s.st.ClaudeConfig, s.st.ClaudeTeam, claudecode.LeadMailboxName)
	if err != nil {
		return err
	}
	evPath, err := state.EventsPath(s.team)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(inbox), 0o700); err != nil {
		return fmt.Errorf("mailboxes: %w", err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch mailboxes: %w", err)
	}
	cfg, err := claudecode.TeamConfigPath(s.st.ClaudeConfig, s.st.ClaudeTeam)
	if err != nil {
		return err
	}
	for _, dir := range []string{filepath.Dir(inbox), filepath.Dir(evPath), filepath.Dir(cfg)} {
		if err := w.Add(dir); err != nil {
			w.Close()
			return fmt.Errorf("watch %s: %w", dir, err)
		}
	}
	// The tasks folder is made here if Claude Code has not made it yet, so that
	// it can be watched from the start (an empty folder changes nothing for
	// Claude Code, and its own clean-up removes it with the team).
	tasksDir, _ := claudecode.TasksDir(s.st.ClaudeConfig, s.st.ClaudeTeam)
	if tasksDir != "" && os.MkdirAll(tasksDir, 0o700) == nil {
		w.Add(tasksDir)
	}
	queue, _ := state.LeadQueuePath(s.team)
	m := &followed{w: w, leadInbox: inbox, events: evPath, queue: queue, config: cfg, tasksDir: tasksDir,
		fire: make(chan struct{}, 1), dirty: map[string]bool{},
		eventsAt: state.EventsEnd(evPath)} // answers before this start are in live.json already
	s.files = m
	go func() {
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				var what string
				switch {
				case ev.Name == inbox:
					what = "inbox"
				case ev.Name == evPath:
					what = "events"
				case ev.Name == queue:
					what = "queue"
				case ev.Name == cfg:
					what = "config"
				case filepath.Dir(ev.Name) == tasksDir:
					what = "tasks"
				default:
					continue
				}
				m.mu.Lock()
				m.dirty[what] = true
				m.mu.Unlock()
				m.later()
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
			}
		}
	}()
	return nil
}

// later gathers a burst of file events (a rename-into-place is several) into one read.
func (m *followed) later() {
	if m.soon != nil {
		m.soon.Reset(mailboxDebounce)
		return
	}
	m.soon = time.AfterFunc(mailboxDebounce, func() {
		select {
		case m.fire <- struct{}{}:
		default:
		}
	})
}

func (m *followed) close() {
	if m != nil {
		m.w.Close()
	}
}

// readFollowed handles what changed among the files it follows (all of them at
// start-up): each is read only when it changed, so the supervisor's own event
// writes cost one incremental read of the event log and nothing more.
func (s *daemon) readFollowed(ctx context.Context, all bool) {
	dirty := s.files.take(all)
	if dirty["inbox"] {
		s.readLeadInbox()
	}
	if dirty["events"] {
		s.readAnswers()
	}
	if dirty["queue"] {
		s.readLeadQueue(ctx)
	}
	if dirty["config"] || dirty["inbox"] {
		s.checkConfig() // also looked at with the inbox: a teammate joining shows there first
	}
	if dirty["tasks"] {
		s.checkTasks()
	}
	if dirty["inbox"] || dirty["events"] || dirty["queue"] {
		s.saveLive()
	}
}

// readLeadInbox turns the lead inbox's new messages into state and events.
func (s *daemon) readLeadInbox() {
	msgs, err := claudecode.ReadMailbox(s.files.leadInbox)
	var corrupt *claudecode.CorruptMailboxError
	var large *claudecode.MailboxTooLargeError
	if !errors.As(err, &large) {
		s.files.tooLarge = false
	}
	switch {
	case errors.As(err, &large):
		// Not loaded (claudecode refuses it unread); reported once while it
		// stays too large, however often teammates write to it.
		if !s.files.tooLarge {
			s.files.tooLarge = true
			s.event(state.Event{Kind: state.EventMailboxTooLarge, Member: claudecode.LeadMailboxName, Detail: fmt.Sprintf("%s is %d bytes, over the limit of %d; not read until it is smaller", large.Path, large.Size, large.Limit)})
		}
	case errors.As(err, &corrupt):
		// Never overwritten (claudecode keeps it as it is); reported once per
		// version of the file, and read again when it changes.
		if fi, serr := os.Stat(s.files.leadInbox); serr == nil {
			mark := fmt.Sprintf("%d-%d", fi.Size(), fi.ModTime().UnixNano())
			if mark != s.files.corruptMark {
				s.files.corruptMark = mark
				s.event(state.Event{Kind: state.EventMailboxCorrupt, Member: claudecode.LeadMailboxName, Detail: fmt.Sprintf("%s does not parse (%v); left as it is", s.files.leadInbox, corrupt.Err)})
			}
		}
	case err != nil:
		s.log.Warn("lead inbox", "err", err)
	default:
		seen := map[string]bool{}
		for _, k := range s.live.LeadInboxSeen {
			seen[k] = true
		}
		for _, msg := range msgs {
			k := messageKey(msg)
			if seen[k] {
				continue
			}
			seen[k] = true
			s.live.LeadInboxSeen = append(s.live.LeadInboxSeen, k)
			s.fromTeammate(msg)
		}
		if n := len(s.live.LeadInboxSeen); n > maxSeenLeadInboxEntries {
			s.live.LeadInboxSeen = s.live.LeadInboxSeen[n-maxSeenLeadInboxEntries:]
		}
	}
}

func messageKey(m claudecode.Message) string {
	sum := sha256.Sum256([]byte(m.From + "\x00" + m.Timestamp + "\x00" + m.Text))
	return hex.EncodeToString(sum[:8])
}

// fromTeammate turns one message to the lead into state and an event.
func (s *daemon) fromTeammate(msg claudecode.Message) {
	v, ok := claudecode.ParseProtocol(msg.Text)
	switch p := v.(type) {
	case claudecode.PermissionRequest:
		name := strings.SplitN(p.AgentID, "@", 2)[0]
		if name == "" {
			name = msg.From
		}
		w := s.watchOf(name)
		req := &state.Request{ID: p.RequestID, Tool: p.ToolName, Description: p.Description, Input: textsafe.Short(string(p.Input), 200), Since: s.clock.Now().UTC()}
		if s.answerByRule(name, p, req) {
			return
		}
		lm := &state.LiveMember{State: state.StateWaitingApproval, Since: req.Since, Request: req}
		if w != nil {
			lm.Pane = w.id
			w.live = lm
		}
		s.live.Members[name] = lm
		s.event(state.Event{Kind: state.EventPermissionRequest, Member: name, Pane: lm.Pane, Detail: fmt.Sprintf("%s %s: %s", p.ToolName, p.RequestID, req.Input), RequestID: p.RequestID, Tool: p.ToolName})
	case claudecode.IdleNotification:
		name := p.From
		if name == "" {
			name = msg.From
		}
		w := s.watchOf(name)
		if w == nil || w.live.State == state.StateWaitingApproval {
			return
		}
		w.live.Result = textsafe.Short(p.Result, 500)
		if w.live.State != state.StateIdle {
			w.live = &state.LiveMember{Pane: w.id, State: state.StateIdle, Since: s.clock.Now().UTC(), Result: w.live.Result}
			w.rechecked = false
			s.event(state.Event{Kind: state.EventIdle, Member: name, Pane: w.id, Detail: "idle_notification: " + textsafe.Short(p.Result, 200)})
		}
		s.live.Members[name] = w.live
	default:
		if ok {
			s.event(state.Event{Kind: state.EventMessage, Member: msg.From, Detail: fmt.Sprintf("%T", v)})
			return
		}
		s.event(state.Event{Kind: state.EventMessage, Member: msg.From, Detail: textsafe.Short(msg.Text, 200)})
	}
}

// readAnswers clears the requests that `teamctl approve` or `deny` answered,
// as recorded in the event log.
func (s *daemon) readAnswers() {
	s.files.eventsAt.Read(s.files.events, func(e state.Event) {
		if e.Kind == state.EventHook {
			s.fromHook(e)
			return
		}
		if e.Kind != state.EventPermissionAnswer {
			return
		}
		w := s.watchOf(e.Member)
		if w == nil || w.live.Request == nil || w.live.Request.ID != e.RequestID {
			return
		}
		w.live = &state.LiveMember{Pane: w.id, State: state.StateRunning, Since: s.clock.Now().UTC()}
		s.live.Members[e.Member] = w.live
	})
}

func (s *daemon) watchOf(name string) *paneWatch {
	for _, w := range s.panes {
		if w.member == name {
			return w
		}
	}
	return nil
}

// answerByRule answers a permission request when the layout's rules decide it
// (the member's and the team's; deny wins), records both the request and the
// answer naming the rule, and reports whether it did. No rule, no answer.
func (s *daemon) answerByRule(member string, p claudecode.PermissionRequest, req *state.Request) bool {
	if s.lay == nil {
		return false
	}
	allow, deny := toRules(s.lay.Permissions.Allow), toRules(s.lay.Permissions.Deny)
	for _, m := range s.lay.All() {
		if m.Name == member {
			allow = append(toRules(m.Permissions.Allow), allow...)
			deny = append(toRules(m.Permissions.Deny), deny...)
		}
	}
	cwd := ""
	if m, ok := s.st.Member(member); ok {
		cwd = m.Cwd
	}
	d, rule := permrules.Decide(permrules.Call{Tool: p.ToolName, Input: p.Input, Cwd: cwd}, allow, deny)
	if d == permrules.Ask {
		return false
	}
	how, reason := "automatic: allowed by rule "+rule.Text, ""
	if d == permrules.Deny {
		how, reason = "automatic: denied by rule "+rule.Text, "denied by rule "+rule.Text
	}
	if err := claudecode.AnswerRequest(context.Background(), s.st.ClaudeConfig, s.st.ClaudeTeam, member, p, reason); err != nil {
		s.log.Warn("answer by rule", "member", member, "err", err)
		return false // a person can still answer it
	}
	s.event(state.Event{Kind: state.EventPermissionRequest, Member: member, Detail: fmt.Sprintf("%s %s: %s", p.ToolName, p.RequestID, req.Input), RequestID: p.RequestID, Tool: p.ToolName})
	s.event(state.Event{Kind: state.EventPermissionAnswer, Member: member, RequestID: p.RequestID, Tool: p.ToolName, Detail: how})
	return true
}

func toRules(rs []layouts.Rule) []permrules.Rule {
	out := make([]permrules.Rule, 0, len(rs))
	for _, r := range rs {
		out = append(out, permrules.Rule{Text: r.Text, Tool: r.Tool, Pattern: r.Pattern})
	}
	return out
}

// checkConfig keeps the lead's team config.json there while the team is up:
// when it disappears (teammates cannot reach the lead without it: their
// permission requests fail silently) a minimal one is written again. It also
// reports changes to the member list. It never rewrites a config that exists,
// and never writes one the lead has not written first: that file is the lead's.
func (s *daemon) checkConfig() {
	cfg, err := claudecode.ReadTeamConfig(s.files.config)
	if errors.Is(err, fs.ErrNotExist) {
		if s.files.members == nil {
			return // not written yet: the lead writes it (and `up` waits for that); never pre-empt it
		}
		leadPID := 0
		if m, ok := s.st.Member(s.leadName()); ok {
			leadPID = m.PID
		}
		minimal := claudecode.MinimalTeamConfig(s.st.ClaudeTeam, s.st.LeadSessionID, s.leadCwd(), leadPID, s.clock.Now())
		if written, werr := claudecode.WriteTeamConfigIfMissing(s.files.config, minimal); werr != nil {
			s.log.Warn("recreate team config", "err", werr)
		} else if written {
			s.event(state.Event{Kind: state.EventConfig, Detail: "the team's config.json was gone; wrote a minimal one so teammates can reach the lead"})
		}
		return
	}
	if err != nil {
		return // being written, or not ours to judge
	}
	now := map[string]bool{}
	for _, m := range cfg.Members {
		now[m.Name] = true
	}
	if s.files.members != nil {
		for name := range now {
			if !s.files.members[name] {
				s.event(state.Event{Kind: state.EventMember, Member: name, Detail: "joined the team's config.json"})
			}
		}
		for name := range s.files.members {
			if !now[name] {
				s.event(state.Event{Kind: state.EventMember, Member: name, Detail: "left the team's config.json"})
			}
		}
	}
	s.files.members = now
}

func (s *daemon) leadName() string {
	for _, m := range s.st.Members {
		if m.Role == state.RoleLead {
			return m.Name
		}
	}
	return ""
}

func (s *daemon) leadCwd() string {
	if m, ok := s.st.Member(s.leadName()); ok {
		return m.Cwd
	}
	return ""
}

// fromHook uses a Claude Code hook as a second signal: Stop and TeammateIdle
// mean the member finished its turn (idle), PermissionRequest and Notification
// mean it may be asking, so its screen is looked at now rather than after the
// quiet period.
func (s *daemon) fromHook(e state.Event) {
	w := s.watchOf(e.Member)
	if w == nil || w.live.State == state.StateExited || w.live.State == state.StateFailed {
		return
	}
	switch e.Hook {
	case "Stop", "TeammateIdle":
		if w.live.State != state.StateIdle && w.live.State != state.StateWaitingApproval && w.live.State != state.StateStalled {
			w.live = &state.LiveMember{Pane: w.id, State: state.StateIdle, Since: s.clock.Now().UTC()}
			w.rechecked = false
			s.live.Members[w.member] = w.live
			s.event(state.Event{Kind: state.EventIdle, Member: w.member, Pane: w.id, Detail: "hook " + e.Hook})
		}
	case "PermissionRequest", "Notification":
		s.requestCapture(w)
	}
}
