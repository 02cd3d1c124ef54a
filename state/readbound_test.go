package state

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/safefile"
)

// TestStateFilesAreReadBounded: state.json and live.json replaced by a
// FIFO (an agent can write the state folder) are refused at once, not
// waited on; one over MaxStateFileBytes is refused, not read into memory.
func TestStateFilesAreReadBounded(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir, err := EnsureDir("t")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"state.json", "live.json"} {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip(err)
		}
		done := make(chan error, 1)
		go func() {
			if name == "state.json" {
				_, err := Load("t")
				done <- err
				return
			}
			_, err := ReadLive("t")
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, safefile.ErrNotRegular) {
				t.Errorf("%s a FIFO: %v", name, err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s a FIFO: still reading after a minute", name)
		}
		os.Remove(p)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, MaxStateFileBytes+1); err != nil {
			t.Fatal(err)
		}
		if name == "state.json" {
			_, err = Load("t")
		} else {
			_, err = ReadLive("t")
		}
		if !errors.Is(err, safefile.ErrTooLarge) {
			t.Errorf("%s over the limit: %v", name, err)
		}
		os.Remove(p)
	}
}

// TestLeadQueueLongLinePassedOver: a lead queue with 100 MiB of zeros and
// no newline among them (an agent can write the state folder) is read
// without holding them: the texts around it are read, the zeros passed
// over, and no more than maxLineBytes of them is held.
func TestLeadQueueLongLinePassedOver(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	if err := QueueForLead("t", "before"); err != nil {
		t.Fatal(err)
	}
	p, _ := LeadQueuePath("t")
	fi, _ := os.Stat(p)
	if err := os.Truncate(p, fi.Size()+100<<20); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\n")
	f.Close()
	if err := QueueForLead("t", "after"); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var got []string
	end, err := ReadLeadQueue("t", 0, func(text string, _ int64) { got = append(got, text) })
	runtime.ReadMemStats(&after)
	size, _ := os.Stat(p)
	if err != nil || !slices.Equal(got, []string{"before", "after"}) || end != size.Size() {
		t.Errorf("read %q to %d of %d: %v", got, end, size.Size(), err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 80<<20 { // the zeros held whole would be over 100 MiB
		t.Errorf("took %d MiB to read past 100 MiB of zeros", alloc>>20)
	}
}
