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
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/proc"
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
// team config (members joining and leaving) and the tasks folder. It creates
// nothing in Claude Code's folders: a Claude Code lead that finds its team
// folder there before its config.json claims another team
// (docs/claude-code.md). So it watches the nearest folder that exists — the
// config folder, teams/, then the team's folder and its inboxes/ (tasks/ and
// tasks/<team> likewise) — and each one further down as it appears, reading
// what it holds once it is watched.
type followed struct {
	w           *fsnotify.Watcher
	events      string
	eventsAt    state.EventCursor // how far the event log was read, across rotations
	queue       string
	members     map[string]bool            // the config's members as last read, to report changes
	corruptMark string                     // size and mtime of the lead inbox last reported corrupt
	tooLarge    bool                       // the lead inbox was reported too large, and has not been read since
	tasks       map[string]string          // task id → status, as last read
	refused     map[string]map[string]bool // "inbox", "config", "tasks" → the files reported refused (file-refused), until read again
	msgs        messageQuota               // messages to the lead reported one by one, and counted (messages.go)
	soon        *time.Timer
	fire        chan struct{}
	mu          sync.Mutex
	dirty       map[string]bool // which of the files changed since the last read
	paths       claudePaths     // under mu: the daemon changes them when the team moves
	ancestor    string          // under mu: the folder watched while the config folder is not there
}

// claudePaths are the Claude Code files and folders of the team's Claude Code
// team, from the config folder down.
type claudePaths struct {
	configDir, teams, teamDir, inboxes, leadInbox, config, tasksRoot, tasksDir string
}

func pathsOf(configDir, team string) (claudePaths, error) {
	inbox, err := claudecode.InboxPath(configDir, team, claudecode.LeadMailboxName)
	if err != nil {
		return claudePaths{}, err
	}
	cfg, err := claudecode.TeamConfigPath(configDir, team)
	if err != nil {
		return claudePaths{}, err
	}
	tasks, err := claudecode.TasksDir(configDir, team)
	if err != nil {
		return claudePaths{}, err
	}
	return claudePaths{configDir: configDir, teams: filepath.Join(configDir, "teams"), teamDir: filepath.Dir(cfg),
		inboxes: filepath.Dir(inbox), leadInbox: inbox, config: cfg, tasksRoot: filepath.Dir(tasks), tasksDir: tasks}, nil
}

// dirs are the folders watched when they exist, each below the one before.
func (p claudePaths) dirs() []string {
	return []string{p.configDir, p.teams, p.teamDir, p.inboxes, p.tasksRoot, p.tasksDir}
}

// take returns what changed since the last call (everything when all is set).
func (m *followed) take(all bool) map[string]bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.dirty
	m.dirty = map[string]bool{}
	if all {
		for _, k := range []string{"inbox", "events", "queue", "config", "tasks", "teams"} {
			d[k] = true
		}
	}
	return d
}

func (m *followed) mark(what ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range what {
		m.dirty[k] = true
	}
	m.later()
}

func (m *followed) claude() claudePaths {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.paths
}

// rewatch watches every folder of the team's that exists and is not watched
// yet (a watch goes with its folder), and has whatever a newly watched one
// holds read, since it may have been written before the watch began.
func (m *followed) rewatch() {
	if m.w == nil {
		return // no watcher (the decision tests say what changed themselves)
	}
	p := m.claude()
	have := map[string]bool{}
	for _, d := range m.w.WatchList() {
		have[d] = true
	}
	// Until the config folder itself is there, its nearest folder that is,
	// which tells when it comes; no longer once it has.
	m.mu.Lock()
	ancestor := m.ancestor
	m.mu.Unlock()
	if fi, err := os.Stat(p.configDir); err == nil && fi.IsDir() {
		if ancestor != "" {
			m.w.Remove(ancestor)
			ancestor = ""
		}
	} else {
		d := filepath.Dir(p.configDir)
		for ; d != filepath.Dir(d); d = filepath.Dir(d) {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				break
			}
		}
		if d != ancestor {
			if ancestor != "" {
				m.w.Remove(ancestor)
			}
			if m.w.Add(d) == nil {
				ancestor = d
			}
		}
	}
	m.mu.Lock()
	m.ancestor = ancestor
	m.mu.Unlock()
	added := false
	for _, d := range p.dirs() {
		if have[d] {
			continue
		}
		// Lstat: a team folder, inboxes/ or tasks folder that is a link is
		// not watched (its files are refused); the folders above may be links.
		stat := os.Stat
		if d == p.teamDir || d == p.inboxes || d == p.tasksDir {
			stat = os.Lstat
		}
		if fi, err := stat(d); err != nil || !fi.IsDir() {
			continue
		}
		if m.w.Add(d) == nil {
			added = true
		}
	}
	if added {
		m.mark("inbox", "config", "tasks", "teams")
	}
}

// kind says which of the followed things a file event is about ("" for none).
func (m *followed) kind(name string) string {
	p := m.claude()
	switch {
	case name == p.leadInbox, name == p.inboxes: // inboxes/ itself: one put there as a link is reported
		return "inbox"
	case name == m.events:
		return "events"
	case name == m.queue:
		return "queue"
	case name == p.config, name == p.teamDir:
		return "config"
	case filepath.Dir(name) == p.tasksDir, name == p.tasksDir:
		return "tasks"
	case filepath.Dir(name) == p.teams:
		return "teams" // another team's folder: the lead may have claimed it
	}
	return ""
}

// follow starts watching; a team whose Claude Code files cannot be watched
// is still supervised through its screens (the error is logged).
func (s *daemon) follow() error {
	paths, err := pathsOf(s.claudeDir, s.st.ClaudeTeam)
	if err != nil {
		return err
	}
	evPath, err := state.EventsPath(s.team)
	if err != nil {
		return err
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch mailboxes: %w", err)
	}
	if err := w.Add(filepath.Dir(evPath)); err != nil {
		w.Close()
		return fmt.Errorf("watch %s: %w", filepath.Dir(evPath), err)
	}
	queue, _ := state.LeadQueuePath(s.team)
	m := &followed{w: w, events: evPath, queue: queue, paths: paths,
		fire: make(chan struct{}, 1), dirty: map[string]bool{},
		eventsAt: state.EventsEnd(evPath)} // answers before this start are in live.json already
	m.rewatch()
	s.files = m
	go func() {
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
					p := m.claude()
					if slices.Contains(p.dirs(), ev.Name) || strings.HasPrefix(p.configDir, ev.Name+string(filepath.Separator)) {
						m.rewatch() // one of the team's folders (or one above them) came or went
					}
				}
				if what := m.kind(ev.Name); what != "" {
					m.mark(what)
				}
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
			}
		}
	}()
	return nil
}

// later gathers a burst of file events (a rename-into-place is several) into
// one read. It runs under m.mu.
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
	if dirty["teams"] || dirty["config"] {
		s.checkTeam() // first: a team the lead moved to is the one to look at
	}
	if dirty["config"] || dirty["inbox"] {
		s.checkConfig() // also looked at with the inbox: a teammate joining shows there first
		s.checkPromptsInPlaceholder()
	}
	if dirty["tasks"] {
		s.checkTasks()
	}
	if dirty["messages"] {
		s.flushMessages()
	}
	if dirty["inbox"] || dirty["events"] || dirty["queue"] {
		s.saveLive()
	}
}

// refusals reports, once each, the files of kind ("inbox", "config",
// "tasks") that teamctl would not read now (path → why), as file-refused
// events; a file read again since is reported again when next refused.
func (s *daemon) refusals(kind string, now map[string]error) {
	if s.files.refused == nil {
		s.files.refused = map[string]map[string]bool{}
	}
	was := s.files.refused[kind]
	paths := make([]string, 0, len(now))
	for p := range now {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		if !was[p] {
			s.event(state.Event{Kind: state.EventFileRefused, Detail: fmt.Sprintf("not read: %v", now[p])})
		}
	}
	if len(now) == 0 {
		delete(s.files.refused, kind)
		return
	}
	s.files.refused[kind] = map[string]bool{}
	for p := range now {
		s.files.refused[kind][p] = true
	}
}

// readLeadInbox turns the lead inbox's new messages into state and events.
func (s *daemon) readLeadInbox() {
	leadInbox := s.files.claude().leadInbox
	msgs, err := claudecode.ReadMailbox(leadInbox)
	var corrupt *claudecode.CorruptMailboxError
	var large *claudecode.MailboxTooLargeError
	var link *claudecode.LinkError
	if !errors.As(err, &large) {
		s.files.tooLarge = false
	}
	if errors.As(err, &link) {
		s.refusals("inbox", map[string]error{link.Path: err})
	} else {
		s.refusals("inbox", nil)
	}
	switch {
	case link != nil:
		// Reported (refusals); nothing read.
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
		if fi, serr := os.Stat(leadInbox); serr == nil {
			mark := fmt.Sprintf("%d-%d", fi.Size(), fi.ModTime().UnixNano())
			if mark != s.files.corruptMark {
				s.files.corruptMark = mark
				s.event(state.Event{Kind: state.EventMailboxCorrupt, Member: claudecode.LeadMailboxName, Detail: fmt.Sprintf("%s does not parse (%v); left as it is", leadInbox, corrupt.Err)})
			}
		}
	case err != nil:
		s.log.Warn("lead inbox", "err", err)
	default:
		seen := map[string]bool{}
		for _, k := range s.live.LeadInboxSeen {
			seen[k] = true
		}
		// Messages are appended: what comes before the last one seen was
		// seen, even when it is older than the keys kept (a mailbox of
		// 200k messages would otherwise be reported again at every read).
		keys := make([]string, len(msgs))
		from := 0
		for i := len(msgs) - 1; i >= 0; i-- {
			keys[i] = messageKey(msgs[i])
			if seen[keys[i]] {
				from = i + 1
				break
			}
		}
		for i := from; i < len(msgs); i++ {
			k := keys[i]
			if seen[k] {
				continue
			}
			seen[k] = true
			s.live.LeadInboxSeen = append(s.live.LeadInboxSeen, k)
			s.fromTeammate(msgs[i])
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

// fromTeammate turns one message to the lead into state and an event. A
// permission request or idle notification changes the state only of the
// teammate that wrote it (see teammateOf); one that names another member, or
// comes from anyone but a teammate, is reported and left alone.
func (s *daemon) fromTeammate(msg claudecode.Message) {
	v, ok := claudecode.ParseProtocol(msg.Text)
	switch p := v.(type) {
	case claudecode.PermissionRequest:
		name, err := s.teammateOf(claudecode.RequestFrom(msg, p, s.st.ClaudeTeam))
		if err != nil {
			s.message(sender(msg.From), fmt.Sprintf("permission request %s left alone: %v", textsafe.Short(p.RequestID, 80), err))
			return
		}
		w := s.watchOf(name)
		req := &state.Request{ID: p.RequestID, Tool: p.ToolName, Description: p.Description, Input: textsafe.Short(string(p.Input), 200), Since: s.clock.Now().UTC()}
		if s.answerByRule(name, p, req) {
			return
		}
		if w != nil && (w.live.State == state.StateExited || w.live.State == state.StateFailed) {
			// Written by a run that has ended: nobody waits for the answer.
			s.event(state.Event{Kind: state.EventMessage, Member: name, Pane: w.id, Detail: fmt.Sprintf("permission request %s of a run that has ended: %s %s", p.RequestID, p.ToolName, req.Input)})
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
		name, err := claudecode.IdleFrom(msg, p)
		if _, ok := s.st.Member(name); err == nil && !ok {
			return // none of the team's (yet): nothing to change
		}
		name, err = s.teammateOf(name, err)
		if err != nil {
			s.message(sender(msg.From), fmt.Sprintf("idle notification left alone: %v", err))
			return
		}
		w := s.watchOf(name)
		// An exit stands: the notice a teammate wrote on its way out (read
		// after its pane died) must not make it idle, or its restart, which
		// waits for an exited member, would never come.
		if w == nil || w.live.State == state.StateWaitingApproval || w.live.State == state.StateExited || w.live.State == state.StateFailed {
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
		from := sender(msg.From)
		detail := textsafe.Short(msg.Text, 200)
		if ok {
			detail = fmt.Sprintf("%T", v)
		}
		if from == "" {
			detail = fmt.Sprintf("from %q: %s", textsafe.Short(msg.From, 80), detail)
		}
		s.message(from, detail)
	}
}

// sender is a message's from as a member name in an event: "" when it is no
// valid one (its detail then quotes it).
func sender(from string) string {
	if claudecode.ValidMemberName(from) {
		return from
	}
	return ""
}

// teammateOf passes on the name of a message's writer (claudecode.RequestFrom,
// IdleFrom) when it is a teammate of this team: one of the layout's or one
// the lead spawned, never the lead or a process member, whose state a
// message to the lead must not change.
func (s *daemon) teammateOf(name string, err error) (string, error) {
	if err != nil {
		return "", err
	}
	m, ok := s.st.Member(name)
	switch {
	case ok && m.Role != state.RoleTeammate:
		return "", fmt.Errorf("%s is the team's %s, not a teammate", name, m.Role)
	case !ok && !s.spawnedByLead(name):
		return "", fmt.Errorf("%s is no member of the team", name)
	}
	return name, nil
}

// spawnedByLead reports whether name is a teammate the lead spawned whose
// pane the daemon has not adopted yet: one the team's config.json lists
// besides the lead. Its request waits in live.json for the pane (sync).
func (s *daemon) spawnedByLead(name string) bool {
	if name == claudecode.LeadMailboxName {
		return false
	}
	cfg, err := claudecode.ReadTeamConfig(s.files.claude().config)
	if err != nil {
		return false
	}
	for _, m := range cfg.Members {
		if m.Name == name {
			return true
		}
	}
	return false
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
	// Members run as the supervisor's user: ~/ in a rule is this home. With
	// none, ~/ rules match nothing and a ~/ deny rule leaves calls to a person.
	home, _ := os.UserHomeDir()
	c := permrules.Call{Tool: p.ToolName, Input: p.Input, Cwd: cwd, Home: home}
	d, rule := permrules.Decide(c, allow, deny)
	if d == permrules.Ask {
		return false
	}
	how, reason := "automatic: allowed by rule "+rule.Text, ""
	if d == permrules.Deny {
		how, reason = "automatic: denied by rule "+rule.Text, "denied by rule "+rule.Text
	}
	if err := claudecode.AnswerRequest(context.Background(), s.claudeDir, s.st.ClaudeTeam, member, p, reason); err != nil {
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

// checkConfig keeps a config.json in the team's folder while layout
// teammates run: without one their permission requests fail silently. A
// Claude Code lead removes its team folder when it ends (/exit); teamctl then
// writes a placeholder (claudecode.PlaceholderTeamConfig), which the lead,
// restarted, takes over under the same name. With no layout teammate running
// nothing is written: the lead makes its own, and a folder made before it
// would send it to another team. It also reports changes to the member list.
// It never rewrites a config that exists: that file is the lead's. One it
// would not read (too large, a link) is reported once (file-refused).
func (s *daemon) checkConfig() {
	path := s.files.claude().config
	cfg, err := claudecode.ReadTeamConfig(path)
	var large *claudecode.TooLargeError
	var link *claudecode.LinkError
	switch {
	case errors.As(err, &large):
		s.refusals("config", map[string]error{path: err})
	case errors.As(err, &link):
		s.refusals("config", map[string]error{link.Path: err})
	default:
		s.refusals("config", nil)
	}
	if errors.Is(err, fs.ErrNotExist) {
		if !s.teammatesRunning() {
			return
		}
		if written, werr := claudecode.EnsureTeamConfig(s.claudeDir, s.st.ClaudeTeam, s.st.ClaudeLeadSession(), s.leadCwd(), s.clock.Now()); werr != nil {
			s.log.Warn("recreate team config", "err", werr)
		} else if written {
			s.event(state.Event{Kind: state.EventConfig, Detail: "the team's config.json was gone while teammates run; wrote a placeholder so they can reach the lead (a restarting lead takes it over)"})
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
				s.syncLater() // its pane, if one waits for a name, has it now
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

// promptWatch is how long after the lead took a placeholder config over the
// daemon keeps looking for the prompts it left there (Claude Code may empty
// inboxes/ a moment after it writes its config), and promptLook how often.
const (
	promptWatch = 2 * time.Minute
	promptLook  = time.Second
)

// checkPromptsInPlaceholder gives the layout teammates whose prompt up left in
// a placeholder's mailboxes their prompt again when a Claude Code lead, taking
// the placeholder over, emptied inboxes/ before they read it (seen, 2.1.328:
// the teammate then waits forever). Only a mailbox that is gone gets it again,
// and only for a teammate without a stored conversation (one that has it
// took its prompt): a prompt is never given twice to a teammate that read it.
func (s *daemon) checkPromptsInPlaceholder() {
	pending := s.st.PromptsInPlaceholder
	if len(pending) == 0 {
		return
	}
	p := s.files.claude()
	if cfg, err := claudecode.ReadTeamConfig(p.config); err != nil || cfg.LeadProcess == nil || cfg.IsPlaceholder() {
		if s.takenOver.IsZero() {
			return // not taken over yet: a change to the config brings the daemon back
		}
	} else if s.takenOver.IsZero() {
		s.takenOver = s.clock.Now()
	}
	var keep []string
	for _, name := range pending {
		m, ok := s.st.Member(name)
		prompt := s.lay.PromptOf(name)
		if !ok || prompt == "" || claudecode.SessionExists(s.claudeDir, m.SessionID) {
			continue
		}
		inbox, err := claudecode.InboxPath(s.claudeDir, s.st.ClaudeTeam, name)
		if err != nil {
			continue
		}
		if _, err := os.Lstat(inbox); errors.Is(err, fs.ErrNotExist) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := claudecode.DeliverPrompt(ctx, s.claudeDir, s.st.ClaudeTeam, name, prompt)
			cancel()
			if err != nil {
				s.log.Warn("give a prompt again", "member", name, "err", err)
				keep = append(keep, name)
				continue
			}
			s.event(state.Event{Kind: state.EventConfig, Member: name, Detail: "the lead took the placeholder team config over and emptied its mailboxes before " + name + " read its prompt; gave it again"})
			continue
		}
		if s.clock.Now().Sub(s.takenOver) < promptWatch {
			keep = append(keep, name)
		}
	}
	if len(keep) != len(pending) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.updateTeam(ctx, func(st *state.Team) { st.PromptsInPlaceholder = keep }); err != nil {
			s.log.Error("state", "err", err)
		}
	}
	if len(keep) > 0 {
		s.clock.AfterFunc(promptLook, func() { s.files.mark("config") })
	}
}

// teammatesRunning reports whether a teammate of the layout's runs: one that
// needs the team's config.json to reach the lead.
func (s *daemon) teammatesRunning() bool {
	for _, m := range s.st.Members {
		if m.Role != state.RoleTeammate || m.Origin == state.OriginLead {
			continue
		}
		if w := s.watchOf(m.Name); w != nil && !w.live.State.Ended() {
			return true
		}
	}
	return false
}

// Looking for the team the lead claimed: this often, at most this many times
// after each reason to look (the lead claims its team within a second or two
// of starting). A team of another name is followed only once the lead has
// held it this long: Claude Code claims one under a passing name at start-up
// and moves to its session's within a moment (seen for 0.1-0.3 s).
const (
	teamLookEvery = 250 * time.Millisecond
	teamLooks     = 120
	teamSettle    = 5 * time.Second
)

// checkTeam makes sure the daemon follows the Claude Code team the lead
// actually claimed. teamctl never makes the lead's folder before the lead, but
// should Claude Code claim another one anyway (it does when it finds its
// folder taken), the team the lead's process claimed is found by its
// leadProcess, recorded in state and followed, with a team-moved event.
func (s *daemon) checkTeam() {
	lead := s.watchOf(s.leadName())
	if lead == nil || lead.pid <= 0 || lead.live.State.Ended() {
		return
	}
	if lead.pid != s.teamPID {
		s.teamPID, s.teamTries = lead.pid, 0 // a new lead process: look afresh
	}
	p := s.files.claude()
	if cfg, err := claudecode.ReadTeamConfig(p.config); err == nil && cfg.LeadProcess != nil && !cfg.IsPlaceholder() {
		if cfg.LeadProcess.PID == lead.pid {
			return // claimed by the lead: the usual case
		}
		if slices.Contains(proc.Tree(lead.pid), cfg.LeadProcess.PID) {
			return // by the lead under a wrapper
		}
	}
	// Only a claim by the lead's own process (its pid and start time) can
	// move the team: a config.json anyone can write, naming a process under
	// the lead or none, is no claim.
	name, cfg, ok := claudecode.ClaimedTeam(p.configDir, lead.pid)
	if ok && name != s.st.ClaudeTeam {
		if why := s.notToFollow(name, cfg); why != "" {
			if s.teamRefused != name {
				s.teamRefused = name
				s.log.Warn("not following the lead to another Claude Code team", "team", name, "why", why)
			}
			ok = false
		}
	}
	switch {
	case ok && name == s.st.ClaudeTeam:
		s.teamCandidate, s.teamReclaims = "", 0
		return
	case !ok:
		s.teamCandidate = "" // not claimed yet (or not Claude Code)
	case name != s.teamCandidate:
		s.teamCandidate, s.teamSince = name, s.clock.Now()
	case s.clock.Now().Sub(s.teamSince) >= teamSettle:
		s.teamCandidate = ""
		if !s.reclaimOwnTeam(lead, name) {
			s.moveTeam(name, cfg)
		}
		return
	}
	// Look again shortly, a bounded number of times.
	if s.teamTries < teamLooks {
		s.teamTries++
		s.clock.AfterFunc(teamLookEvery, func() { s.files.mark("teams") })
	}
}

// notToFollow says why the daemon must not follow the lead to Claude Code
// team name, whose config is cfg, or "" when it may. A team is followed only
// under a name Claude Code gives (session-<8 hex>) with a session id of its
// shape, and never into a folder another teamctl team records (now or in an
// earlier life): clean removes the folders of the team followed, and those
// are another team's.
func (s *daemon) notToFollow(name string, cfg *claudecode.TeamConfig) string {
	if !claudecode.IsLeadTeamName(name) {
		return "not a name Claude Code gives a lead's team (session-<8 hex>)"
	}
	if !claudecode.ValidSessionID(cfg.LeadSessionID) {
		return fmt.Sprintf("its leadSessionId %q is not a session id", textsafe.Short(cfg.LeadSessionID, 80))
	}
	owners, err := state.ClaudeTeamOwners()
	if err != nil {
		return "cannot tell which teams record it: " + err.Error()
	}
	if other := state.OwnedByAnother(owners, name, s.team); other != "" {
		return "team " + other + " records it as its own"
	}
	return ""
}

// teamReclaims is how many times in a row the daemon relaunches a lead that
// kept a passing team while its own waited for it (reclaimOwnTeam) before it
// follows the lead there instead.
const teamReclaims = 2

// reclaimOwnTeam relaunches a Claude Code lead that kept the passing team it
// claims at start-up while its own team is there for it to take over (the
// config of its session, naming a lead process that is gone). Claude Code
// takes its team over under the config's lock, trying for about a second; a
// lead that cannot — a teammate writing the config, descheduled on a busy
// machine (seen in e2e at load 10, 2.1.332) — stays in the passing team, away
// from its teammates and their mailboxes. Ended (SIGTERM: Claude Code removes
// the passing team's folder as it goes) and restarted at once whatever its
// restart policy, it resumes its conversation and takes its own team over. It
// reports whether it did so; after teamReclaims tries in a row the daemon
// follows the lead instead.
func (s *daemon) reclaimOwnTeam(lead *paneWatch, claimed string) bool {
	if s.teamReclaims >= teamReclaims || lead.reclaiming {
		return false
	}
	m, ok := s.st.Member(lead.member)
	if !ok || m.Role != state.RoleLead || m.SessionID == "" || lead.pid <= 0 {
		return false
	}
	if s.st.ClaudeTeam != claudecode.LeadTeamName(m.SessionID) {
		return false // followed elsewhere before: a resumed lead goes to its session's team, not there
	}
	own, err := claudecode.ReadTeamConfig(s.files.claude().config)
	if err != nil || own.LeadSessionID != s.st.ClaudeLeadSession() || !own.LeadGone() {
		return false
	}
	s.teamReclaims++
	lead.reclaiming = true
	s.event(state.Event{Kind: state.EventRestart, Member: lead.member, Pane: lead.id, Detail: fmt.Sprintf(
		"the lead (pid %d) could not take its Claude Code team %s over and kept %s: relaunching it to take its own", lead.pid, s.st.ClaudeTeam, claimed)})
	// The pane's process group is the lead's (tmux makes each pane's program a
	// session leader); its pid is tmux's word, the team's own server's.
	if err := syscall.Kill(-lead.pid, syscall.SIGTERM); err != nil {
		s.log.Warn("end the lead to take its team over", "pid", lead.pid, "err", err)
		lead.reclaiming = false
		return false
	}
	return true
}

// moveTeam follows the lead to the Claude Code team it claimed: recorded in
// state (so every command finds it), watched instead of the old one, read
// afresh, and reported.
func (s *daemon) moveTeam(name string, cfg *claudecode.TeamConfig) {
	old := s.st.ClaudeTeam
	paths, err := pathsOf(s.claudeDir, name)
	if err != nil {
		s.log.Warn("follow the lead's team", "team", name, "err", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.updateTeam(ctx, func(st *state.Team) {
		st.ClaudeTeam, st.ClaudeTeamSession = name, cfg.LeadSessionID
	}); err != nil {
		s.log.Error("state", "err", err)
		return
	}
	s.files.mu.Lock()
	s.files.paths = paths
	s.files.mu.Unlock()
	s.files.members, s.files.tasks = nil, nil
	s.files.rewatch()
	s.files.mark("inbox", "config", "tasks")
	s.event(state.Event{Kind: state.EventTeamMoved, Member: s.leadName(), Detail: fmt.Sprintf("the lead (pid %d) claimed Claude Code team %s, not %s; following it", s.teamPID, name, old)})
	s.syncLater() // panes waiting for a name find it in the new config
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
// quiet period. A hook speaks only for the pane it ran in (`teamctl hook`
// records its TMUX_PANE): one naming a member whose pane is another is
// reported, once per member and pane, and changes nothing.
func (s *daemon) fromHook(e state.Event) {
	w := s.watchOf(e.Member)
	if w == nil {
		return
	}
	if e.Pane != w.id {
		s.hookFromElsewhere(e, w)
		return
	}
	if w.live.State == state.StateExited || w.live.State == state.StateFailed {
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

// hookFromElsewhere reports a hook that named a member from a pane not its
// own: another member's (an agent running `teamctl hook` with another's
// TEAMCTL_MEMBER), none, or the member's pane before a relaunch.
func (s *daemon) hookFromElsewhere(e state.Event, w *paneWatch) {
	key := e.Member + " " + e.Pane
	if s.hooksRefused[key] {
		return
	}
	if s.hooksRefused == nil || len(s.hooksRefused) >= 1000 {
		s.hooksRefused = map[string]bool{}
	}
	s.hooksRefused[key] = true
	from := "pane " + e.Pane
	if e.Pane == "" {
		from = "no pane"
	}
	s.event(state.Event{Kind: state.EventSupervisor, Member: e.Member, Pane: w.id, Hook: e.Hook, Detail: fmt.Sprintf(
		"ignored a %s hook for %s from %s: %s runs in pane %s, and a hook speaks only for the pane it runs in", e.Hook, e.Member, from, e.Member, w.id)})
}

// restorePending shows again the permission requests of layout teammates
// still unanswered in the lead's inbox (no answer in the event log), for a
// team resumed on a new server: their states were left behind with the old
// one, and the inbox's messages were reported already. The last request of
// each teammate wins.
func (s *daemon) restorePending() {
	msgs, err := claudecode.ReadMailbox(s.files.claude().leadInbox)
	if err != nil {
		return
	}
	answered := map[string]bool{}
	evs, _ := state.ReadEvents(s.team)
	for _, e := range evs {
		if e.Kind == state.EventPermissionAnswer {
			answered[e.RequestID] = true
		}
	}
	for _, msg := range msgs {
		v, _ := claudecode.ParseProtocol(msg.Text)
		p, ok := v.(claudecode.PermissionRequest)
		if !ok || answered[p.RequestID] {
			continue
		}
		name, err := s.teammateOf(claudecode.RequestFrom(msg, p, s.st.ClaudeTeam))
		if err != nil {
			continue // reported when it was read
		}
		if m, _ := s.st.Member(name); m.Origin != state.OriginLayout {
			continue
		}
		req := &state.Request{ID: p.RequestID, Tool: p.ToolName, Description: p.Description, Input: textsafe.Short(string(p.Input), 200), Since: s.clock.Now().UTC()}
		lm := &state.LiveMember{State: state.StateWaitingApproval, Since: req.Since, Request: req}
		if w := s.watchOf(name); w != nil {
			lm.Pane = w.id
			w.live = lm
		}
		s.live.Members[name] = lm
	}
	s.saveLive()
}
