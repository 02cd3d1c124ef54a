package state

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/teamctl/teamctl/internal/safefile"
)

// Event is one line of events.jsonl.
type Event struct {
	Time      time.Time `json:"time"`
	Team      string    `json:"team"`
	Member    string    `json:"member,omitempty"`
	Pane      string    `json:"pane,omitempty"`
	Kind      EventKind `json:"kind"`
	Pattern   string    `json:"pattern,omitempty"`
	Line      string    `json:"line,omitempty"`
	Excerpt   string    `json:"excerpt,omitempty"`
	ExitCode  *int      `json:"exit_code,omitempty"`
	Signal    int       `json:"signal,omitempty"`
	Restarts  int       `json:"restarts,omitempty"`
	Origin    Origin    `json:"origin,omitempty"`
	Keys      []string  `json:"keys,omitempty"`
	Option    string    `json:"option,omitempty"` // for kind "answer": the dialog's option chosen ("4. No")
	RequestID string    `json:"request_id,omitempty"`
	Tool      string    `json:"tool,omitempty"`
	Hook      string    `json:"hook,omitempty"` // the Claude Code hook event, for kind "hook"
	// Other and Files, for kinds "conflict" and "conflict-resolved": the
	// member whose work Member's would conflict with, and in which files.
	Other  string   `json:"other,omitempty"`
	Files  []string `json:"files,omitempty"`
	Detail string   `json:"detail,omitempty"`
	// Reset, for kinds "limited" and "limit-resume": when the limit resets
	// (to the minute its screen showed), when known.
	Reset time.Time `json:"reset,omitzero"`
	// Via and From, for a person's action that came another way than the
	// command line: which ("web": teamctl serve) and from which address.
	Via  string `json:"via,omitempty"`
	From string `json:"from,omitempty"`
}

// MarshalJSON writes the time as RFC 3339 with nanoseconds.
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	return json.Marshal(struct {
		Time string `json:"time"`
		plain
	}{e.Time.UTC().Format(time.RFC3339Nano), plain(e)})
}

// EventLog appends events to a team's events.jsonl. Each event is one write of
// one line to a file opened with O_APPEND, so concurrent writers (the
// supervisor, `teamctl answer`, `hook`, `approve`, `deny`, `send`) never
// interleave within a line.
//
// The log rotates by size: once events.jsonl reaches eventsMaxBytes it is
// renamed events.jsonl.1 (.1 to .2, up to eventsBackups; the oldest goes).
// Every append holds a shared flock on events.lock for its write, and a
// rotation holds it exclusively for its renames, so no one appends to a file
// that was rotated: a rotated file never changes again, and a reader that read
// it to its end has all of it (EventCursor).
type EventLog struct {
	mu   sync.Mutex
	team string
	path string
	f    *os.File // the events file as last opened; reopened once rotated
	lock *os.File // events.lock
}

// eventsBackups is how many rotated event files are kept.
const eventsBackups = 3

// eventsMaxBytes is the size at which events.jsonl rotates: 8 MiB, or
// TEAMCTL_EVENTS_MAX_BYTES when set (read once; tests lower it).
var eventsMaxBytes = func() int64 {
	if v, err := strconv.ParseInt(os.Getenv("TEAMCTL_EVENTS_MAX_BYTES"), 10, 64); err == nil && v > 0 {
		return v
	}
	return 8 << 20
}()

// eventsLockWait bounds a wait for events.lock, which is held for one write or
// a few renames: a holder stuck longer (stopped by a signal) fails the append
// rather than hanging the supervisor.
const eventsLockWait = 10 * time.Second

// EventsPath is the team's events file.
func EventsPath(team string) (string, error) {
	dir, err := Dir(team)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "events.jsonl"), nil
}

// eventsBackup is the name of the n-th rotated events file (1 the newest).
func eventsBackup(path string, n int) string { return path + "." + strconv.Itoa(n) }

// OpenEventLog opens (creating) the team's event log. A symlink at
// events.jsonl or events.lock is refused, never followed.
func OpenEventLog(team string) (*EventLog, error) {
	dir, err := EnsureDir(team)
	if err != nil {
		return nil, err
	}
	return openEventLog(team, dir)
}

// OpenTeamEventLog opens the event log of a team that has state, and never
// makes a state folder: for callers that any TEAMCTL_TEAM reaches (Claude
// Code's hooks), which must not leave a folder behind for a team that does
// not exist. The folder must be a real one of the user's, not a symlink.
func OpenTeamEventLog(team string) (*EventLog, error) {
	dir, err := Dir(team)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("team %q: %w", team, ErrNotFound)
	}
	if _, err := os.Lstat(filepath.Join(dir, "state.json")); err != nil && !relayed(dir) {
		return nil, fmt.Errorf("team %q: %w", team, ErrNotFound)
	}
	if err := safefile.CheckDir(dir, "state folder"); err != nil {
		return nil, err
	}
	// O_CREATE makes files, never the folder: gone by now, this fails.
	return openEventLog(team, dir)
}

// openEventLog opens (creating) the event log and its lock file in dir.
func openEventLog(team, dir string) (*EventLog, error) {
	lock, err := safefile.Open(filepath.Join(dir, "events.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open event log: %w", err)
	}
	l := &EventLog{team: team, path: filepath.Join(dir, "events.jsonl"), lock: lock}
	if l.f, err = safefile.Open(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err != nil {
		lock.Close()
		return nil, fmt.Errorf("open event log: %w", err)
	}
	return l, nil
}

// Append records e (its Time and Team are filled in when empty), and rotates
// the log when it has reached its size.
func (l *EventLog) Append(e Event) error {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	e.Team = l.team
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := flockWait(l.lock, syscall.LOCK_SH); err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	size, err := l.write(append(b, '\n'))
	syscall.Flock(int(l.lock.Fd()), syscall.LOCK_UN)
	if err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	if size >= eventsMaxBytes {
		if err := l.rotate(); err != nil {
			return fmt.Errorf("rotate event log: %w", err)
		}
	}
	return nil
}

// write appends line to the current events file, reopening it when the one
// held was rotated (by this process or another), and returns the file's size
// after the write. The caller holds events.lock shared.
func (l *EventLog) write(line []byte) (int64, error) {
	if l.f != nil && !isCurrent(l.f, l.path) {
		l.f.Close()
		l.f = nil
	}
	if l.f == nil {
		f, err := safefile.Open(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return 0, err
		}
		l.f = f
	}
	if _, err := l.f.Write(line); err != nil {
		return 0, err
	}
	fi, err := l.f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// isCurrent reports whether f is still the file at path.
func isCurrent(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}

// rotate renames events.jsonl to events.jsonl.1, after moving .1 to .2 and so
// on (the oldest is replaced, and so dropped), unless another appender rotated
// it meanwhile. rename(2) moves a link as a link: nothing is followed.
func (l *EventLog) rotate() error {
	if err := flockWait(l.lock, syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(l.lock.Fd()), syscall.LOCK_UN)
	fi, err := os.Lstat(l.path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() < eventsMaxBytes {
		return nil // rotated by another appender already
	}
	for n := eventsBackups - 1; n >= 1; n-- {
		if err := os.Rename(eventsBackup(l.path, n), eventsBackup(l.path, n+1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return os.Rename(l.path, eventsBackup(l.path, 1))
}

// flockWait takes a flock on f (LOCK_SH or LOCK_EX), waiting up to eventsLockWait.
func flockWait(f *os.File, how int) error {
	deadline := time.Now().Add(eventsLockWait)
	wait := time.Millisecond
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			return fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("lock %s: held for over %s", f.Name(), eventsLockWait)
		}
		time.Sleep(wait) // backoff while another process writes or rotates
		wait = min(wait*2, 10*time.Millisecond)
	}
}

// Close closes the log.
func (l *EventLog) Close() error {
	l.lock.Close()
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}

// decodeEvent reads one line; the time is RFC 3339.
func decodeEvent(line []byte) (Event, error) {
	var e Event
	err := json.Unmarshal(line, &e)
	return e, err
}

// ReadEvents returns the team's events, oldest first, across rotations.
func ReadEvents(team string) ([]Event, error) {
	p, err := EventsPath(team)
	if err != nil {
		return nil, err
	}
	var out []Event
	var c EventCursor
	err = c.Read(p, func(e Event) { out = append(out, e) })
	return out, err
}

// EventCursor is how far a reader has got in a team's event log: a file (by
// identity, since rotation renames it) and an offset in it. The zero cursor is
// before the oldest event kept.
type EventCursor struct {
	fi  os.FileInfo // the file last read; nil before the first
	off int64
}

// EventsEnd is a cursor after every event now in the log: the end of
// events.jsonl, or of events.jsonl.1 in the moment after a rotation before the
// next append makes events.jsonl again (a rotated file never grows).
func EventsEnd(path string) EventCursor {
	for _, name := range []string{path, eventsBackup(path, 1)} {
		f, err := safefile.Open(name, os.O_RDONLY, 0)
		if err != nil {
			continue
		}
		fi, err := f.Stat()
		f.Close()
		if err == nil {
			return EventCursor{fi: fi, off: fi.Size()}
		}
	}
	return EventCursor{}
}

// Read calls fn for each complete event after c, oldest first — the rest of
// the file c is in, whatever its name now, then every newer file — and moves c
// past them. The files are opened newest first: a rotation meanwhile only
// gives a file an older name, so none is missed (one seen under two names is
// read once), and a newer file appears at the next read.
func (c *EventCursor) Read(path string, fn func(Event)) error {
	type file struct {
		f  *os.File
		fi os.FileInfo
	}
	var files []file // newest first
	defer func() {
		for _, g := range files {
			g.f.Close()
		}
	}()
	for n := 0; n <= eventsBackups; n++ {
		name := path
		if n > 0 {
			name = eventsBackup(path, n)
		}
		f, err := safefile.Open(name, os.O_RDONLY, 0)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read events: %w", err)
		}
		fi, err := f.Stat()
		if err != nil || slices.ContainsFunc(files, func(g file) bool { return os.SameFile(g.fi, fi) }) {
			f.Close()
			continue
		}
		files = append(files, file{f, fi})
	}
	if len(files) == 0 {
		return nil
	}
	start, off := len(files)-1, int64(0) // the oldest, from its start
	if c.fi != nil {
		// The file c is in; when it is gone (removed by hand, or rotated
		// out long ago) the newest, from its start, as when a log is replaced.
		start = 0
		for i, g := range files {
			if os.SameFile(g.fi, c.fi) {
				start, off = i, c.off
			}
		}
	}
	for i := start; i >= 0; i-- {
		g := files[i]
		if i != start || g.fi.Size() < off {
			off = 0 // a newer file; or this one was cut short by hand
		}
		n, err := readLines(g.f, off, func(line []byte) {
			if e, err := decodeEvent(line); err == nil {
				fn(e)
			}
		})
		c.fi, c.off = g.fi, off+n
		if err != nil {
			return fmt.Errorf("read events: %w", err)
		}
	}
	return nil
}

// FollowEvents calls fn for every event already in the log and then for every
// new one as it is appended, until ctx ends, across rotations. It watches the
// folder with fsnotify (a rotation renames events.jsonl, then makes it anew).
func FollowEvents(ctx context.Context, team string, fn func(Event)) error {
	return FollowEventsAfter(ctx, team, func(evs []Event) {
		for _, e := range evs {
			fn(e)
		}
	}, fn)
}

// FollowEventsAfter is FollowEvents that hands the events already in the log
// to backlog, in one call, before any new one reaches fn (`events --tail N
// -f` shows the last N of them, then follows).
func FollowEventsAfter(ctx context.Context, team string, backlog func([]Event), fn func(Event)) error {
	p, err := EventsPath(team)
	if err != nil {
		return err
	}
	if _, err := EnsureDir(team); err != nil {
		return err
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch events: %w", err)
	}
	defer w.Close()
	if err := w.Add(filepath.Dir(p)); err != nil {
		return fmt.Errorf("watch events: %w", err)
	}
	var c EventCursor
	var old []Event
	if err := c.Read(p, func(e Event) { old = append(old, e) }); err != nil {
		return err
	}
	backlog(old)
	readMore := func() error { return c.Read(p, fn) }
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if ev.Name == p {
				if err := readMore(); err != nil {
					return err
				}
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			return fmt.Errorf("watch events: %w", err)
		}
	}
}
