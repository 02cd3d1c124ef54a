package state

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/teamctl/teamctl/internal/safefile"
)

// The lead queue (lead-queue.jsonl) is where `teamctl send lead` leaves text
// for the supervisor, which types it into the lead's pane once the lead is
// idle (a lead that spawned no teammates does not read its inbox). One JSON
// object a line; the supervisor remembers how far it has read (live.json).

// LeadQueuePath is the team's lead queue.
func LeadQueuePath(team string) (string, error) {
	dir, err := Dir(team)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "lead-queue.jsonl"), nil
}

// QueueForLead appends text to the team's lead queue, in one write of one line.
func QueueForLead(team, text string) error {
	dir, err := EnsureDir(team)
	if err != nil {
		return err
	}
	f, err := safefile.Open(filepath.Join(dir, "lead-queue.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("queue for the lead: %w", err)
	}
	b, _ := json.Marshal(map[string]string{"text": text})
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("queue for the lead: %w", err)
	}
	return nil
}

// ReadLeadQueue calls fn with each text queued after offset, and the offset
// just after it (what the reader records once the text is delivered), and
// returns the offset after the last whole line (a partial last line waits for
// its newline). A queue shorter than offset was replaced: it is read from the
// start.
func ReadLeadQueue(team string, offset int64, fn func(text string, end int64)) (int64, error) {
	p, err := LeadQueuePath(team)
	if err != nil {
		return offset, err
	}
	f, err := safefile.Open(p, os.O_RDONLY, 0)
	if err != nil {
		return offset, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() < offset {
		offset = 0
	}
	end := offset
	n, err := readLines(f, offset, func(line []byte) {
		end += int64(len(line))
		var q struct{ Text string }
		if json.Unmarshal(line, &q) == nil && q.Text != "" {
			fn(q.Text, end)
		}
	})
	return offset + n, err
}

// maxLineBytes is the longest line readLines hands on: a queued text of
// MaxLeadText as JSON (which may write a character as \u003c, six bytes),
// and far more than any event. Agents can write the state folder: a longer
// line (a file of zeros with no newline at all) is passed over, never held
// whole in memory.
const maxLineBytes = 8 << 20

// MaxLeadText is the longest text `send` queues for the lead (or leaves in
// a mailbox): 1 MiB, typed into the lead's pane through a paste buffer.
const MaxLeadText = 1 << 20

// readLines is the one reader of a JSON-lines file from an offset: it calls
// fn with each whole line after off and returns how many bytes those lines
// took (a partial last line is left for later). A line over maxLineBytes is
// passed over (and counted as read, even before its newline comes: what
// follows of it then is no JSON line, and is passed over too).
func readLines(f io.ReadSeeker, off int64, fn func(line []byte)) (int64, error) {
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	br := bufio.NewReaderSize(f, 64<<10)
	var (
		n       int64  // the bytes of the lines done
		pending int64  // the bytes of the line being read
		line    []byte // it, unless too long
		long    bool   // it is over maxLineBytes: passed over
	)
	for {
		chunk, err := br.ReadSlice('\n')
		pending += int64(len(chunk))
		if !long {
			if pending > maxLineBytes {
				long, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == nil:
			n += pending
			if !long {
				fn(line)
			}
			pending, line, long = 0, nil, false
		case errors.Is(err, bufio.ErrBufferFull):
		case err == io.EOF:
			if long {
				n += pending
			}
			return n, nil
		default:
			return n, err
		}
	}
}
