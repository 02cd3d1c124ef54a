package state

import (
	"bufio"
	"encoding/json"
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

// ReadLeadQueue calls fn with each text queued after offset and returns the
// offset after the last whole line (a partial last line waits for its
// newline). A queue shorter than offset was replaced: it is read from the start.
func ReadLeadQueue(team string, offset int64, fn func(text string)) (int64, error) {
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
	n, err := readLines(f, offset, func(line []byte) {
		var q struct{ Text string }
		if json.Unmarshal(line, &q) == nil && q.Text != "" {
			fn(q.Text)
		}
	})
	return offset + n, err
}

// readLines is the one reader of a JSON-lines file from an offset: it calls
// fn with each whole line after off and returns how many bytes those lines
// took (a partial last line is left for later).
func readLines(f io.ReadSeeker, off int64, fn func(line []byte)) (int64, error) {
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	br := bufio.NewReader(f)
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
		fn(line)
	}
}
