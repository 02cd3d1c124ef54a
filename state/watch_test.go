package state

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// await takes w's deliveries until what changed of team includes want,
// failing on one that names a team or a change allowed does not hold, or
// when none comes within the deadline.
func await(t *testing.T, w *Watcher, team string, want Change, allowed map[string]Change) []Changes {
	t.Helper()
	deadline := time.After(10 * time.Second)
	var got []Changes
	var seen Change
	for seen&want != want {
		select {
		case c, ok := <-w.C:
			if !ok {
				t.Fatalf("the watch ended; delivered %v", got)
			}
			got = append(got, c)
			if c.Lost || len(c.Teams) == 0 {
				t.Fatalf("delivery %+v: want changes of files, by team", c)
			}
			for tm, ch := range c.Teams {
				if ch == 0 || ch&^allowed[tm] != 0 {
					t.Fatalf("delivery %+v: team %s changed %b, want only some of %b", c, tm, ch, allowed[tm])
				}
			}
			seen |= c.Of(team)
		case <-deadline:
			t.Fatalf("no change %b of %s within the deadline; delivered %v", want, team, got)
		}
	}
	return got
}

func write(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func appendEvent(t *testing.T, team string) {
	t.Helper()
	l, err := OpenEventLog(team)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Append(Event{Kind: EventHook}); err != nil {
		t.Fatal(err)
	}
}

// A team's watch delivers a write of each file that counts as its own
// change, and nothing for the team's other files (its lock, the
// supervisor's log, the lead queue, last words).
func TestWatchTeamDeliversTheFilesThatCount(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir, err := EnsureDir("alpha")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := Watch(ctx, WatchOptions{Team: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	for _, other := range []string{"lock", "supervisor.lock", "supervisor.log", "lead-queue.jsonl", "events.lock", ".state.json.tmp"} {
		write(t, filepath.Join(dir, other))
	}
	if err := os.Mkdir(filepath.Join(dir, "logs"), 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "state.json"))
	await(t, w, "alpha", ChangedState, map[string]Change{"alpha": ChangedState})
	write(t, filepath.Join(dir, "live.json"))
	await(t, w, "alpha", ChangedLive, map[string]Change{"alpha": ChangedState | ChangedLive})
	appendEvent(t, "alpha")
	await(t, w, "alpha", ChangedEvents, map[string]Change{"alpha": ChangedState | ChangedLive | ChangedEvents})

	// Its context ended, the watch ends and says so.
	cancel()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-w.C:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the watch went on after its context ended")
		}
	}
}

// With a debounce, nothing is delivered before it has passed since the first
// change, and a burst of writes is one delivery.
func TestWatchDebounceGathersABurst(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir, err := EnsureDir("burst")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const debounce = time.Second // long beside the burst, which takes well under a millisecond
	w, err := Watch(ctx, WatchOptions{Team: "burst", Debounce: debounce})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	write(t, filepath.Join(dir, "state.json"))
	write(t, filepath.Join(dir, "live.json"))
	appendEvent(t, "burst")
	all := ChangedState | ChangedLive | ChangedEvents
	got := await(t, w, "burst", all, map[string]Change{"burst": all})
	if waited := time.Since(start); waited < debounce {
		t.Errorf("delivered %v after the first write, before the debounce of %v", waited, debounce)
	}
	if len(got) != 1 {
		t.Errorf("the burst came in %d deliveries, want 1: %v", len(got), got)
	}
}

// Watching every team: a team's folder made or removed is a change of that
// team, and its files are watched from then on; a skipped team's files are
// not (its folder coming and going still is) until Rescan finds it no
// longer skipped; a folder that is no team's is nothing.
func TestWatchEveryTeam(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	if err := EnsureRoot(); err != nil {
		t.Fatal(err)
	}
	root, _ := Root()
	var mu sync.Mutex
	skipped := map[string]bool{"beta": true}
	skip := func(team string) bool {
		mu.Lock()
		defer mu.Unlock()
		return skipped[team]
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := Watch(ctx, WatchOptions{Skip: skip})
	if err != nil {
		t.Fatal(err)
	}
	every := ChangedFolder | ChangedState | ChangedLive | ChangedEvents

	alpha, err := EnsureDir("alpha")
	if err != nil {
		t.Fatal(err)
	}
	await(t, w, "alpha", ChangedFolder, map[string]Change{"alpha": ChangedFolder})
	write(t, filepath.Join(alpha, "state.json"))
	await(t, w, "alpha", ChangedState, map[string]Change{"alpha": every})

	beta, err := EnsureDir("beta")
	if err != nil {
		t.Fatal(err)
	}
	await(t, w, "beta", ChangedFolder, map[string]Change{"alpha": every, "beta": ChangedFolder})
	write(t, filepath.Join(beta, "state.json"))
	if err := os.Mkdir(filepath.Join(root, "Not_A_Team"), 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(alpha, "live.json"))
	await(t, w, "alpha", ChangedLive, map[string]Change{"alpha": every, "beta": ChangedFolder})

	mu.Lock()
	delete(skipped, "beta")
	mu.Unlock()
	w.Rescan()
	write(t, filepath.Join(beta, "state.json"))
	await(t, w, "beta", ChangedState, map[string]Change{"alpha": every, "beta": every})

	if err := os.RemoveAll(alpha); err != nil {
		t.Fatal(err)
	}
	await(t, w, "alpha", ChangedFolder, map[string]Change{"alpha": every, "beta": every})
}

// A watch of what is not there is an error saying what it could not watch.
func TestWatchRefusesWhatIsNotThere(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ctx := context.Background()
	for _, c := range []struct {
		o    WatchOptions
		want string
	}{
		{WatchOptions{Team: "Bad/Name"}, "invalid team name"},
		{WatchOptions{Team: "ghost"}, "watch the team's state folder"},
		{WatchOptions{}, "watch the teams' state folder"},
	} {
		if w, err := Watch(ctx, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Watch(%+v) = %v, %v; want an error saying %q", c.o, w, err, c.want)
		}
	}
}

// Lost changes are every change of every team.
func TestChangesOf(t *testing.T) {
	c := Changes{Teams: map[string]Change{"a": ChangedLive}}
	if c.Of("a") != ChangedLive || c.Of("b") != 0 {
		t.Errorf("Of: a %b, b %b", c.Of("a"), c.Of("b"))
	}
	c.Lost = true
	for _, team := range []string{"a", "b"} {
		if got := c.Of(team); got != ChangedFolder|ChangedState|ChangedLive|ChangedEvents {
			t.Errorf("lost: Of(%s) = %b", team, got)
		}
	}
}
