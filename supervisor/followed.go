package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor/internal/filewatch"
)

// The files the daemon follows besides the panes: the lead's inbox
// (teammates' permission requests, idle notifications, messages), the team's
// event log (answers `teamctl approve` and `deny` record, hooks), the lead
// queue (`teamctl send lead`), the lead's team config (members joining and
// leaving; the team the lead claimed) and the tasks folder. Package filewatch
// says which changed; readFollowed reads each that did, bounded (claudecode's
// readers refuse what is too large or a link), and hands what it read to the
// decisions: inbox.go, answers.go, teamconfig.go, teammove.go, tasks.go,
// leadqueue.go.

// filesSeen is what the decisions remember of the followed files between
// reads. The daemon's loop alone uses it.
type filesSeen struct {
	eventsPath  string
	eventsAt    state.EventCursor                  // how far the event log was read, across rotations
	members     map[string]bool                    // the config's members as last read, to report changes
	corruptMark string                             // the version of the lead inbox last reported corrupt
	tooLarge    bool                               // the lead inbox was reported too large, and has not been read since
	tasks       map[string]string                  // task id → status, as last read
	refused     map[filewatch.Kind]map[string]bool // the files of each kind reported refused (file-refused), until read again
	msgs        messageQuota                       // messages to the lead reported one by one, and counted (messages.go)
}

// follow starts watching; a team whose Claude Code files cannot be watched
// is still supervised through its screens (the error is logged).
func (s *daemon) follow() error {
	var paths filewatch.Paths // a team of plain processes: none of Claude Code's
	if s.st.ClaudeTeam != "" {
		var err error
		if paths, err = filewatch.PathsOf(s.claudeDir, s.st.ClaudeTeam); err != nil {
			return err
		}
	}
	evPath, err := state.EventsPath(s.team)
	if err != nil {
		return err
	}
	queue, _ := state.LeadQueuePath(s.team)
	at := state.EventsEnd(evPath) // answers before this start are in live.json already
	w, err := filewatch.Watch(paths, evPath, queue, filewatch.Options{})
	if err != nil {
		return err
	}
	s.files = w
	s.seen.eventsPath, s.seen.eventsAt = evPath, at
	return nil
}

// followedFire is the mailbox watch's signal (never, when mailboxes are not watched).
func (s *daemon) followedFire() <-chan struct{} {
	if s.files == nil {
		return nil
	}
	return s.files.Fire()
}

// readFollowed handles what changed among the files it follows (all of them at
// start-up): each is read only when it changed, so the supervisor's own event
// writes cost one incremental read of the event log and nothing more.
func (s *daemon) readFollowed(ctx context.Context, all bool) {
	dirty := s.files.Take(all)
	if s.st.ClaudeTeam == "" {
		// A team of plain processes has no Claude Code team whose inbox,
		// config or tasks there would be to read.
		for _, k := range []filewatch.Kind{filewatch.Inbox, filewatch.Config, filewatch.Teams, filewatch.Tasks} {
			delete(dirty, k)
		}
	}
	if dirty[filewatch.Inbox] {
		s.fromLeadInbox(ctx, readInbox(s.files.Paths().LeadInbox))
	}
	if dirty[filewatch.Events] {
		s.readAnswers(ctx)
	}
	if dirty[filewatch.Queue] {
		s.readLeadQueue(ctx)
	}
	if dirty[filewatch.Teams] || dirty[filewatch.Config] {
		s.checkTeam(ctx, readConfig(s.files.Paths().Config)) // first: a team the lead moved to is the one to look at
	}
	if dirty[filewatch.Config] || dirty[filewatch.Inbox] {
		// Also looked at with the inbox: a teammate joining shows there first.
		cfg := readConfig(s.files.Paths().Config)
		s.checkConfig(ctx, cfg)
		s.checkPromptsInPlaceholder(ctx, cfg)
	}
	if dirty[filewatch.Tasks] {
		s.checkTasks(readTasks(s.claudeDir, s.st.ClaudeTeam))
	}
	if dirty[filewatch.Refs] {
		s.branchMoved()
	}
	if dirty[messagesDue] {
		s.flushMessages()
	}
	if dirty[filewatch.Transcripts] || dirty[usageDue] {
		s.updateUsage(ctx)
	}
	if dirty[filewatch.Inbox] || dirty[filewatch.Events] || dirty[filewatch.Queue] {
		s.saveLive()
	}
}

// readAnswers hands the events appended to the event log since the last
// read to fromEvent, in order.
func (s *daemon) readAnswers(ctx context.Context) {
	s.seen.eventsAt.Read(s.seen.eventsPath, func(e state.Event) { s.fromEvent(ctx, e) })
}

// inboxRead is the lead's inbox as read (claudecode.ReadMailbox).
type inboxRead struct {
	path string
	msgs []claudecode.Message
	err  error
	// version tells one corrupt inbox from the next (its size and mtime);
	// "" when it could not be told.
	version string
}

func readInbox(path string) inboxRead {
	r := inboxRead{path: path}
	r.msgs, r.err = claudecode.ReadMailbox(path)
	var corrupt *claudecode.CorruptMailboxError
	if errors.As(r.err, &corrupt) {
		if fi, err := os.Stat(path); err == nil {
			r.version = fmt.Sprintf("%d-%d", fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return r
}

// configRead is a team's config.json as read (claudecode.ReadTeamConfig).
type configRead struct {
	path string
	cfg  *claudecode.TeamConfig
	err  error
}

func readConfig(path string) configRead {
	cfg, err := claudecode.ReadTeamConfig(path)
	return configRead{path: path, cfg: cfg, err: err}
}

// tasksRead is a team's tasks folder as read (claudecode.ReadTasks).
type tasksRead struct {
	tasks   []claudecode.Task
	skipped []claudecode.Skipped
	err     error
}

func readTasks(configDir, team string) tasksRead {
	tasks, skipped, err := claudecode.ReadTasks(configDir, team)
	return tasksRead{tasks: tasks, skipped: skipped, err: err}
}
