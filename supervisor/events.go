package supervisor

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/teamctl/teamctl/state"
)

// Event kinds.
const (
	EventStall        = "stall"
	EventStallCleared = "stall-cleared"
	EventIdle         = "idle"
	EventWorking      = "working"
	EventExit         = "exit"
	EventRestart      = "restart"
	EventFailed       = "failed"
	EventAdopted      = "adopted"
	EventAnswer       = "answer"
	EventNotify       = "notify"
	EventSupervisor   = "supervisor"
	EventHook         = "hook"
)

// Event is one line of events.jsonl.
type Event struct {
	Time      time.Time `json:"time"`
	Team      string    `json:"team"`
	Member    string    `json:"member,omitempty"`
	Pane      string    `json:"pane,omitempty"`
	Kind      string    `json:"kind"`
	Pattern   string    `json:"pattern,omitempty"`
	Line      string    `json:"line,omitempty"`
	Excerpt   string    `json:"excerpt,omitempty"`
	ExitCode  *int      `json:"exit_code,omitempty"`
	Signal    int       `json:"signal,omitempty"`
	Restarts  int       `json:"restarts,omitempty"`
	Origin    string    `json:"origin,omitempty"`
	Keys      []string  `json:"keys,omitempty"`
	RequestID string    `json:"request_id,omitempty"`
	Tool      string    `json:"tool,omitempty"`
	Hook      string    `json:"hook,omitempty"` // the Claude Code hook event, for kind "hook"
	Detail    string    `json:"detail,omitempty"`
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
// supervisor, `teamctl answer`) never interleave within a line.
type EventLog struct {
	mu   sync.Mutex
	team string
	f    *os.File
}

// EventsPath is the team's events file.
func EventsPath(team string) (string, error) {
	dir, err := state.Dir(team)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "events.jsonl"), nil
}

// OpenEventLog opens (creating) the team's event log.
func OpenEventLog(team string) (*EventLog, error) {
	if _, err := state.EnsureDir(team); err != nil {
		return nil, err
	}
	p, err := EventsPath(team)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open event log: %w", err)
	}
	return &EventLog{team: team, f: f}, nil
}

// OpenTeamEventLog opens the event log of a team that has state, and never
// makes a state folder: for callers that any TEAMCTL_TEAM reaches (Claude
// Code's hooks), which must not leave a folder behind for a team that does
// not exist. The folder must be a real one, not a symlink.
func OpenTeamEventLog(team string) (*EventLog, error) {
	dir, err := state.Dir(team)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("team %q: %w", team, state.ErrNotFound)
	}
	if _, err := os.Lstat(filepath.Join(dir, "state.json")); err != nil {
		return nil, fmt.Errorf("team %q: %w", team, state.ErrNotFound)
	}
	// O_CREATE makes the file, never the folder: gone by now, this fails.
	f, err := os.OpenFile(filepath.Join(dir, "events.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open event log: %w", err)
	}
	return &EventLog{team: team, f: f}, nil
}

// Append records e (its Time and Team are filled in when empty).
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
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	return nil
}

// Close closes the log.
func (l *EventLog) Close() error { return l.f.Close() }

// decodeEvent reads one line; the time is RFC 3339.
func decodeEvent(line []byte) (Event, error) {
	var e Event
	err := json.Unmarshal(line, &e)
	return e, err
}

// ReadEvents returns the team's events, oldest first.
func ReadEvents(team string) ([]Event, error) {
	p, err := EventsPath(team)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Event
	_, err = scanEvents(f, func(e Event) { out = append(out, e) })
	return out, err
}

// scanEvents reads whole lines from r, calls fn for each event, and returns how
// many bytes it consumed (a partial last line is left for later).
func scanEvents(r io.Reader, fn func(Event)) (int64, error) {
	br := bufio.NewReader(r)
	var n int64
	for {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n += int64(len(line))
		if e, err := decodeEvent(line); err == nil {
			fn(e)
		}
	}
}

// FollowEvents calls fn for every event already in the log and then for every
// new one as it is appended, until ctx ends. It watches the file with fsnotify.
func FollowEvents(ctx context.Context, team string, fn func(Event)) error {
	p, err := EventsPath(team)
	if err != nil {
		return err
	}
	if _, err := state.EnsureDir(team); err != nil {
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
	var off int64
	readMore := func() error {
		f, err := os.Open(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Size() < off {
			off = 0 // the log was replaced
		}
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			return err
		}
		n, err := scanEvents(f, fn)
		off += n
		return err
	}
	if err := readMore(); err != nil {
		return err
	}
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
