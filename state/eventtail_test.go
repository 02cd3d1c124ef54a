package state

import (
	"fmt"
	"testing"
)

// TailEvents starts at a whole line about `back` bytes before the end, gives
// each later event once, and follows the log across a rotation.
func TestTailEventsStartsNearTheEndAndFollows(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	lowerEventsMax(t, 1<<20)
	empty, err := TailEvents("tail", 4096)
	if err != nil {
		t.Fatal(err)
	}
	l, err := OpenEventLog("tail")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range 200 {
		if err := l.Append(Event{Kind: EventHook, Detail: fmt.Sprintf("e%03d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	read := func(tl *EventTail) []string {
		t.Helper()
		var got []string
		if err := tl.Read(func(e Event) { got = append(got, e.Detail) }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	// A tail made before the log existed reads it all from its start.
	if got := read(empty); len(got) != 200 || got[0] != "e000" {
		t.Fatalf("tail of a log that did not exist yet: %d events, first %v", len(got), got[:min(1, len(got))])
	}
	tl, err := TailEvents("tail", 1000)
	if err != nil {
		t.Fatal(err)
	}
	got := read(tl)
	// Each line is about 100 bytes: 1000 bytes back is about ten whole lines,
	// the last of them e199, none cut.
	if len(got) < 5 || len(got) > 12 || got[len(got)-1] != "e199" {
		t.Fatalf("first read: %v", got)
	}
	for i, d := range got {
		if want := fmt.Sprintf("e%03d", 200-len(got)+i); d != want {
			t.Fatalf("first read: event %d is %q, want %q (all: %v)", i, d, want, got)
		}
	}
	if got := read(tl); len(got) != 0 {
		t.Fatalf("a second read with nothing new: %v", got)
	}
	lowerEventsMax(t, 100) // the next append rotates the log
	l.Append(Event{Kind: EventHook, Detail: "after-1"})
	l.Append(Event{Kind: EventHook, Detail: "after-2"})
	if got := read(tl); fmt.Sprint(got) != "[after-1 after-2]" {
		t.Fatalf("across a rotation: %v", got)
	}
}
