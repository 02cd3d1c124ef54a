package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/safefile"
)

func lowerEventsMax(t *testing.T, n int64) {
	old := eventsMaxBytes
	eventsMaxBytes = n
	t.Cleanup(func() { eventsMaxBytes = old })
}

// Several appenders (each its own EventLog, as separate processes have) write
// while the log rotates again and again, and a reader follows it: the reader
// gets every event once, each writer's in order; no more than eventsBackups
// rotated files are kept, none much over the limit; ReadEvents returns what is
// kept, oldest first.
func TestEventLogRotatesUnderConcurrentAppendersAndReaders(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	lowerEventsMax(t, 4096)
	const writers, each = 4, 100
	p, _ := EventsPath("rot")

	// A writer appends only while the reader is fewer than `ahead` events
	// behind: far less than the ~100 the kept files hold, so a reader that the
	// machine leaves behind for a while loses nothing to rotation.
	const ahead = 30
	room := make(chan struct{}, ahead)
	for range ahead {
		room <- struct{}{}
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := OpenEventLog("rot")
			if err != nil {
				errs <- err
				return
			}
			defer l.Close()
			for i := range each {
				select {
				case <-room:
				case <-time.After(time.Minute):
					errs <- errors.New("the reader stopped reading")
					return
				}
				if err := l.Append(Event{Kind: EventHook, Member: fmt.Sprint("w", w), Detail: fmt.Sprintf("w%d-%03d", w, i)}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}

	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	var c EventCursor
	var got []string
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true // every write is in: this read is the last
		default:
		}
		if err := c.Read(p, func(e Event) {
			got = append(got, e.Detail)
			select {
			case room <- struct{}{}:
			default: // a writer's error left the room full
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkOrder := func(what string, got []string, whole bool) {
		t.Helper()
		next := map[string]int{}
		seen := map[string]bool{}
		for _, d := range got {
			if seen[d] {
				t.Fatalf("%s: %s twice", what, d)
			}
			seen[d] = true
			var w, i int
			fmt.Sscanf(d, "w%d-%03d", &w, &i)
			k := fmt.Sprint(w)
			if n, ok := next[k]; ok && i != n || !ok && whole && i != 0 {
				t.Fatalf("%s: %s after w%s-%03d", what, d, k, n-1)
			}
			next[k] = i + 1
		}
	}
	if len(got) != writers*each {
		t.Fatalf("the reader got %d events of %d", len(got), writers*each)
	}
	checkOrder("follower", got, true)

	files, _ := filepath.Glob(p + "*")
	var names []string
	for _, f := range files {
		fi, _ := os.Stat(f)
		names = append(names, fmt.Sprintf("%s %d", filepath.Base(f), fi.Size()))
		if fi.Size() > eventsMaxBytes+512 {
			t.Errorf("%s is %d bytes, over the limit %d by more than a line", f, fi.Size(), eventsMaxBytes)
		}
	}
	want := []string{"events.jsonl", "events.jsonl.1", "events.jsonl.2", "events.jsonl.3"}
	for _, w := range want {
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), w)); err != nil {
			t.Errorf("%s missing: %v (%v)", w, err, names)
		}
	}
	if _, err := os.Stat(p + ".4"); err == nil {
		t.Errorf("more than %d rotated files kept: %v", eventsBackups, names)
	}

	evs, err := ReadEvents("rot")
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) < 50 || len(evs) >= writers*each {
		t.Fatalf("ReadEvents returned %d events (files %v)", len(evs), names)
	}
	var details []string
	for _, e := range evs {
		details = append(details, e.Detail)
	}
	checkOrder("ReadEvents", details, false)
	// What ReadEvents returns is the end of what the follower got.
	if strings.Join(details, ",") != strings.Join(got[len(got)-len(details):], ",") {
		t.Errorf("ReadEvents is not the latest events in order:\n%v\nvs\n%v", details, got[len(got)-len(details):])
	}
}

// A reader left behind in a file that was rotated (twice) reads the rest of it,
// then the newer files, then the current one.
func TestEventCursorFinishesARotatedFile(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	lowerEventsMax(t, 1000)
	l, err := OpenEventLog("behind")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	p, _ := EventsPath("behind")
	n := 0
	add := func(k int) {
		for range k {
			if err := l.Append(Event{Kind: EventHook, Detail: fmt.Sprintf("e%03d", n)}); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	add(2)
	c := EventsEnd(p)
	add(3)
	if _, err := os.Stat(p + ".1"); err == nil {
		t.Fatal("rotated too early for this test")
	}
	var got []string
	c.Read(p, func(e Event) { got = append(got, e.Detail) })
	for _, err := os.Stat(p + ".2"); err != nil; _, err = os.Stat(p + ".2") {
		add(1)
	}
	add(1)
	c.Read(p, func(e Event) { got = append(got, e.Detail) })
	var want []string
	for i := 2; i < n; i++ {
		want = append(want, fmt.Sprintf("e%03d", i))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

// A symlink at events.jsonl (or events.lock) is refused, never appended through.
func TestEventLogRefusesASymlink(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	p, _ := EventsPath("linked")
	os.MkdirAll(filepath.Dir(p), 0o700)
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("precious\n"), 0o600)
	for _, name := range []string{"events.jsonl", "events.lock"} {
		link := filepath.Join(filepath.Dir(p), name)
		os.Remove(link) // made by the open before
		if err := os.Symlink(victim, link); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenEventLog("linked"); !errors.Is(err, safefile.ErrSymlink) || !strings.Contains(err.Error(), link) {
			t.Errorf("%s a symlink: err = %v", name, err)
		}
		os.Remove(link)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("victim written: %q", b)
	}
}
