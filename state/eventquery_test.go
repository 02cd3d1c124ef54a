package state

import (
	"context"
	"testing"
	"time"
)

// TestQueryEvents: the events from Since on, of those the last Tail, in the
// order they were appended even where their times are not (several writers
// append); with Follow, then the new ones from Since on, until the context
// ends.
func TestQueryEvents(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	l, err := OpenEventLog("q")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	at := time.Date(2026, 3, 4, 9, 0, 0, 0, time.UTC)
	for i, min := range []int{0, 10, 30, 20, 40} {
		if err := l.Append(Event{Time: at.Add(time.Duration(min) * time.Minute), Kind: EventIdle, Detail: string(rune('a' + i))}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		q    EventQuery
		want string
	}{
		{"all", EventQuery{Tail: -1}, "abcde"},
		{"since", EventQuery{Since: at.Add(15 * time.Minute), Tail: -1}, "cde"},
		{"tail", EventQuery{Tail: 2}, "de"},
		{"since and tail", EventQuery{Since: at.Add(15 * time.Minute), Tail: 2}, "de"},
		{"tail 0", EventQuery{}, ""},
		{"more than there are", EventQuery{Since: at.Add(35 * time.Minute), Tail: 3}, "e"},
	} {
		var got string
		if err := QueryEvents(context.Background(), "q", c.q, func(e Event) { got += e.Detail }); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}

	// Followed: the last one from Since on, then a new one from then on; an
	// older one appended meanwhile is left out.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan string, 10)
	done := make(chan error, 1)
	go func() {
		done <- QueryEvents(ctx, "q", EventQuery{Since: at.Add(15 * time.Minute), Tail: 1, Follow: true}, func(e Event) { got <- e.Detail })
	}()
	next := func() string {
		select {
		case d := <-got:
			return d
		case <-time.After(10 * time.Second):
			t.Fatal("no event within 10s")
			return ""
		}
	}
	if d := next(); d != "e" {
		t.Fatalf("first %q, want e", d)
	}
	for _, e := range []Event{{Time: at, Detail: "old"}, {Time: at.Add(time.Hour), Detail: "new"}} {
		e.Kind = EventIdle
		if err := l.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if d := next(); d != "new" {
		t.Errorf("then %q, want new (the older one left out)", d)
	}
	cancel()
	if err := <-done; err != nil {
		t.Error(err)
	}
	if len(got) > 0 {
		t.Errorf("%d more events", len(got))
	}
}
