// Package filewatch tells the supervisor which of a team's files changed,
// with fsnotify: the lead's inbox, the team's event log and lead queue, the
// lead's team config (and the other teams' folders beside it, one of which
// the lead may claim) and the tasks folder. What a change means is the
// supervisor's to decide; this package only says what changed, a burst of
// file events (a rename into place is several) at a time.
//
// It creates nothing in Claude Code's folders: a Claude Code lead that finds
// its team folder there before its config.json claims another team
// (docs/claude-code.md). So it watches the nearest folder that exists — the
// config folder, teams/, then the team's folder and its inboxes/ (tasks/ and
// tasks/<team> likewise) — and each one further down as it appears, and has
// what a newly watched one holds read, since it may have been written before
// the watch began.
package filewatch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/teamctl/teamctl/claudecode"
)

// Kind is one of the things followed, as the supervisor reads them.
type Kind string

// The kinds of files a change is about. Mark takes kinds of the
// supervisor's own as well (a look due later), which Take hands back alike.
const (
	Inbox  Kind = "inbox"  // the lead's inbox, or inboxes/ itself
	Events Kind = "events" // the team's event log
	Queue  Kind = "queue"  // the lead queue
	Config Kind = "config" // the team's config.json, or the team's folder
	Tasks  Kind = "tasks"  // the team's tasks folder or a file in it
	Teams  Kind = "teams"  // another team's folder: the lead may have claimed it
	// Refs is a file of a member's branch (FollowRefs): it moved. Not among
	// the files Take(true) hands back, as nothing is read of it.
	Refs Kind = "refs"
	// Transcripts is a member's Claude Code transcripts (FollowTranscripts):
	// a session wrote, or a transcript or a folder of them came. However
	// often they are written, it is marked at most once every
	// TranscriptsEvery: a busy team writes its transcripts many times a
	// second, and what is spent is read (and budgets decided) no oftener.
	// Not among the files Take(true) hands back.
	Transcripts Kind = "transcripts"
)

// TranscriptsEvery is the most often Transcripts is marked, unless the
// Watcher's Options say otherwise.
const TranscriptsEvery = time.Second

// Options tune a Watcher; the zero Options are the defaults.
type Options struct {
	// TranscriptsEvery is the most often Transcripts is marked (zero:
	// TranscriptsEvery).
	TranscriptsEvery time.Duration
}

// files are the kinds Take(true) hands back: every file followed.
var files = []Kind{Inbox, Events, Queue, Config, Tasks, Teams}

// Debounce is how long a burst of file events is gathered into one signal.
const Debounce = 20 * time.Millisecond

// Paths are the Claude Code files and folders of a team's Claude Code team,
// from the config folder down; none (the zero Paths) for a team of plain
// processes, which has no Claude Code team.
type Paths struct {
	ConfigDir, Teams, TeamDir, Inboxes, LeadInbox, Config, TasksRoot, TasksDir string
}

// PathsOf are the paths of Claude Code team team in Claude Code's folder
// configDir.
func PathsOf(configDir, team string) (Paths, error) {
	inbox, err := claudecode.InboxPath(configDir, team, claudecode.LeadMailboxName)
	if err != nil {
		return Paths{}, err
	}
	cfg, err := claudecode.TeamConfigPath(configDir, team)
	if err != nil {
		return Paths{}, err
	}
	tasks, err := claudecode.TasksDir(configDir, team)
	if err != nil {
		return Paths{}, err
	}
	return Paths{ConfigDir: configDir, Teams: filepath.Join(configDir, "teams"), TeamDir: filepath.Dir(cfg),
		Inboxes: filepath.Dir(inbox), LeadInbox: inbox, Config: cfg, TasksRoot: filepath.Dir(tasks), TasksDir: tasks}, nil
}

// dirs are the folders watched when they exist, each below the one before.
func (p Paths) dirs() []string {
	return []string{p.ConfigDir, p.Teams, p.TeamDir, p.Inboxes, p.TasksRoot, p.TasksDir}
}

// Watcher follows a team's files and says which changed since it was last
// asked (Take), signalling on Fire when something did.
type Watcher struct {
	w             *fsnotify.Watcher // nil: Unwatched
	events, queue string
	fire          chan struct{}

	mu       sync.Mutex
	soon     *time.Timer
	dirty    map[Kind]bool   // what changed since the last Take
	paths    Paths           // Move changes them when the team moves
	ancestor string          // the folder watched while the config folder is not there
	refs     map[string]bool // FollowRefs's files
	tdirs    map[string]bool // FollowTranscripts's folders
	tsoon    bool            // a Transcripts mark is due (transcriptsChanged)
	tevery   time.Duration   // the most often Transcripts is marked (Options)
}

// Watch starts following the files of Claude Code team paths, the team's
// event log events and its lead queue queue (in the event log's folder),
// tuned by o.
func Watch(paths Paths, events, queue string, o Options) (*Watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch mailboxes: %w", err)
	}
	if err := w.Add(filepath.Dir(events)); err != nil {
		w.Close()
		return nil, fmt.Errorf("watch %s: %w", filepath.Dir(events), err)
	}
	m := Unwatched(paths, events, queue)
	m.w = w
	if o.TranscriptsEvery > 0 {
		m.tevery = o.TranscriptsEvery
	}
	m.rewatch()
	go m.run()
	return m, nil
}

// Unwatched is a Watcher that watches nothing: what changed is what Mark
// says (the supervisor's decision tests).
func Unwatched(paths Paths, events, queue string) *Watcher {
	return &Watcher{events: events, queue: queue, paths: paths, fire: make(chan struct{}, 1), dirty: map[Kind]bool{}, tevery: TranscriptsEvery}
}

// run turns fsnotify's events into marks until the watcher is closed.
func (m *Watcher) run() {
	for {
		select {
		case ev, ok := <-m.w.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				p := m.Paths()
				if slices.Contains(p.dirs(), ev.Name) || strings.HasPrefix(p.ConfigDir, ev.Name+string(filepath.Separator)) {
					m.rewatch() // one of the team's folders (or one above them) came or went
				}
			}
			switch what := m.kind(ev.Name); what {
			case "":
			case Transcripts:
				if ev.Has(fsnotify.Create) {
					// A session's folder, or its subagents', came: watched, and
					// the followed folders made in it before its watch began too.
					if ds := m.followedUnder(ev.Name); len(ds) > 0 {
						m.FollowTranscripts(ds)
					}
				}
				m.transcriptsChanged()
			default:
				m.Mark(what)
			}
		case _, ok := <-m.w.Errors:
			if !ok {
				return
			}
		}
	}
}

// Fire signals that something changed since the last Take.
func (m *Watcher) Fire() <-chan struct{} { return m.fire }

// Take returns what changed since the last call (every file when all is set).
func (m *Watcher) Take(all bool) map[Kind]bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.dirty
	m.dirty = map[Kind]bool{}
	if all {
		for _, k := range files {
			d[k] = true
		}
	}
	return d
}

// Mark says that what changed, for the next Take, and signals on Fire
// shortly.
func (m *Watcher) Mark(what ...Kind) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range what {
		m.dirty[k] = true
	}
	m.later()
}

// Paths are the Claude Code team's paths followed now.
func (m *Watcher) Paths() Paths {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.paths
}

// Move follows Claude Code team paths instead (the lead claimed another
// team), and has what it holds read.
func (m *Watcher) Move(paths Paths) {
	m.mu.Lock()
	m.paths = paths
	m.mu.Unlock()
	m.rewatch()
	m.Mark(Inbox, Config, Tasks)
}

// FollowRefs follows files too, whose change is Refs: the supervisor's
// conflict radar gives the files of each member's branch (its worktree's
// HEAD, its loose ref), so that a branch moving is seen. Their folders are
// watched (one that does not exist is not); a file already followed is
// taken once.
func (m *Watcher) FollowRefs(files []string) {
	m.mu.Lock()
	if m.refs == nil {
		m.refs = map[string]bool{}
	}
	var dirs []string
	for _, f := range files {
		if !m.refs[f] {
			m.refs[f] = true
			dirs = append(dirs, filepath.Dir(f))
		}
	}
	m.mu.Unlock()
	if m.w == nil {
		return // no watcher (the decision tests say what changed themselves)
	}
	have := map[string]bool{}
	for _, d := range m.w.WatchList() {
		have[d] = true
	}
	for _, d := range dirs {
		if !have[d] && m.w.Add(d) == nil {
			have[d] = true
		}
	}
}

// FollowTranscripts follows folders of Claude Code transcripts too (the
// projects folder, a project folder holding a member's session, a session's
// subagents folder): a change in one, or one coming, is Transcripts. A
// folder that does not exist (yet) is watched once it is made in a folder
// watched (or given again). Links are not followed (Lstat), as the transcripts' reader refuses
// them.
func (m *Watcher) FollowTranscripts(dirs []string) {
	m.mu.Lock()
	if m.tdirs == nil {
		m.tdirs = map[string]bool{}
	}
	for _, d := range dirs {
		m.tdirs[d] = true
	}
	m.mu.Unlock()
	if m.w == nil {
		return
	}
	have := map[string]bool{}
	for _, d := range m.w.WatchList() {
		have[d] = true
	}
	for _, d := range dirs {
		if have[d] {
			continue
		}
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() && m.w.Add(d) == nil {
			have[d] = true
		}
	}
}

// followedUnder are FollowTranscripts's folders that are name or below it.
func (m *Watcher) followedUnder(name string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for d := range m.tdirs {
		if d == name || strings.HasPrefix(d, name+string(filepath.Separator)) {
			out = append(out, d)
		}
	}
	return out
}

// transcriptsChanged marks Transcripts once m.tevery has passed,
// unless a mark is already due: a stream of writes makes one mark a period,
// never a mark put off for as long as the writes go on.
//
// Until the mark the transcripts' folders are not watched: each write of a
// busy team's transcripts (bench/cost: 16 members appending every 100 ms,
// 160 writes a second) woke this process twice to say what the mark says
// once, about half of what following them cost. They are watched again
// just before the mark, so the look the mark brings reads whatever was
// written meanwhile (a Meter reads each file to its end), and a followed
// folder made meanwhile is watched from then on.
func (m *Watcher) transcriptsChanged() {
	m.mu.Lock()
	if m.tsoon {
		m.mu.Unlock()
		return
	}
	m.tsoon = true
	own := map[string]bool{m.ancestor: true}
	for _, d := range m.paths.dirs() {
		own[d] = true // the team's own folders, watched for their own sake
	}
	var paused []string
	for d := range m.tdirs {
		if !own[d] {
			paused = append(paused, d)
		}
	}
	m.mu.Unlock()
	if m.w != nil {
		for _, d := range paused {
			m.w.Remove(d) // one not watched: nothing to do
		}
	}
	time.AfterFunc(m.tevery, func() {
		m.mu.Lock()
		m.tsoon = false
		dirs := make([]string, 0, len(m.tdirs))
		for d := range m.tdirs {
			dirs = append(dirs, d)
		}
		m.mu.Unlock()
		m.FollowTranscripts(dirs)
		m.Mark(Transcripts)
	})
}

// Close stops watching.
func (m *Watcher) Close() {
	if m != nil && m.w != nil {
		m.w.Close()
	}
}

// rewatch watches every folder of the team's that exists and is not watched
// yet (a watch goes with its folder), and has whatever a newly watched one
// holds read, since it may have been written before the watch began.
func (m *Watcher) rewatch() {
	if m.w == nil {
		return // no watcher (the decision tests say what changed themselves)
	}
	p := m.Paths()
	if p.ConfigDir == "" {
		return // no Claude Code team (a team of plain processes)
	}
	have := map[string]bool{}
	for _, d := range m.w.WatchList() {
		have[d] = true
	}
	// Until the config folder itself is there, its nearest folder that is,
	// which tells when it comes; no longer once it has.
	m.mu.Lock()
	ancestor := m.ancestor
	m.mu.Unlock()
	if fi, err := os.Stat(p.ConfigDir); err == nil && fi.IsDir() {
		if ancestor != "" {
			m.w.Remove(ancestor)
			ancestor = ""
		}
	} else {
		d := filepath.Dir(p.ConfigDir)
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
		if d == p.TeamDir || d == p.Inboxes || d == p.TasksDir {
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
		m.Mark(Inbox, Config, Tasks, Teams)
	}
}

// kind says which of the followed things a file event is about ("" for none).
func (m *Watcher) kind(name string) Kind {
	p := m.Paths()
	switch {
	case name == p.LeadInbox, name == p.Inboxes: // inboxes/ itself: one put there as a link is reported
		return Inbox
	case name == m.events:
		return Events
	case name == m.queue:
		return Queue
	case name == p.Config, name == p.TeamDir:
		return Config
	case filepath.Dir(name) == p.TasksDir, name == p.TasksDir:
		return Tasks
	case filepath.Dir(name) == p.Teams:
		return Teams
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.refs[name] {
		return Refs
	}
	if m.tdirs[name] || m.tdirs[filepath.Dir(name)] {
		return Transcripts
	}
	return ""
}

// later gathers a burst of file events into one signal. It runs under m.mu.
func (m *Watcher) later() {
	if m.soon != nil {
		m.soon.Reset(Debounce)
		return
	}
	m.soon = time.AfterFunc(Debounce, func() {
		select {
		case m.fire <- struct{}{}:
		default:
		}
	})
}
