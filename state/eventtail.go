package state

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/teamctl/teamctl/internal/safefile"
)

// EventTail reads a team's latest events and then each one appended, across
// rotations, for a view that shows the newest (teamctl top): it starts near
// the end of the log instead of reading up to 32 MiB of history.
type EventTail struct {
	path string
	c    EventCursor
}

// TailEvents returns a tail whose first Read gives the events in about the
// last back bytes of events.jsonl (whole lines only), and later Reads what was
// appended since.
func TailEvents(team string, back int64) (*EventTail, error) {
	p, err := EventsPath(team)
	if err != nil {
		return nil, err
	}
	t := &EventTail{path: p}
	f, err := safefile.Open(p, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil // no event yet: the first Read takes the file once it exists
	}
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	t.c = EventCursor{fi: fi}
	if start := fi.Size() - back; start > 0 {
		// Start after the first newline at or after start-1: a whole line.
		buf := make([]byte, min(back, 64<<10)+1)
		n, err := f.ReadAt(buf, start-1)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read events: %w", err)
		}
		i := bytes.IndexByte(buf[:n], '\n')
		if i < 0 {
			t.c.off = fi.Size() // one line longer than back: start at the end
		} else {
			t.c.off = start + int64(i)
		}
	}
	return t, nil
}

// Read calls fn for each complete event not read yet, oldest first.
func (t *EventTail) Read(fn func(Event)) error { return t.c.Read(t.path, fn) }
