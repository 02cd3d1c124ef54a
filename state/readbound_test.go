package state

import (
	"errors"
	"os"
	"path/filepath"
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
