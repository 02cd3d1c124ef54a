package filewatch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// waitFor waits for the watcher to say that what changed, taking every mark
// on the way.
func waitFor(t *testing.T, m *Watcher, what Kind) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case <-m.Fire():
			if m.Take(false)[what] {
				return
			}
		case <-deadline:
			t.Fatalf("no change of %s reported", what)
		}
	}
}

// TestFoldersAreWatchedAsTheyAppear: with no Claude Code folder at all, the
// watch makes none, and reports the lead's inbox, the config and the tasks
// once their folders appear one below the other, and another team's folder
// appearing beside the team's.
func TestFoldersAreWatchedAsTheyAppear(t *testing.T) {
	dir := t.TempDir()
	stateDir := filepath.Join(dir, "state")
	if err := os.Mkdir(stateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	configDir := filepath.Join(dir, "home", ".claude")
	p, err := PathsOf(configDir, "session-0123abcd")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Watch(p, filepath.Join(stateDir, "events.jsonl"), filepath.Join(stateDir, "lead-queue.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := os.Lstat(filepath.Join(dir, "home")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the watch made a folder of Claude Code's: %v", err)
	}

	write := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		// As Claude Code writes its files: a temp file renamed into place.
		if err := os.WriteFile(path+".tmp", []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			t.Fatal(err)
		}
	}
	write(p.LeadInbox, "[]")
	waitFor(t, m, Inbox)
	write(p.LeadInbox, `[{"from":"mate","text":"hi","timestamp":"2026-12-01T09:00:00.000Z"}]`)
	waitFor(t, m, Inbox)
	write(p.Config, "{}")
	waitFor(t, m, Config)
	write(filepath.Join(p.TasksDir, "1.json"), "{}")
	waitFor(t, m, Tasks)
	if err := os.Mkdir(filepath.Join(p.Teams, "session-77777777"), 0o700); err != nil {
		t.Fatal(err)
	}
	waitFor(t, m, Teams)
	write(filepath.Join(stateDir, "events.jsonl"), "")
	waitFor(t, m, Events)
}

// TestWhatAFileEventIsAbout: each file and folder followed is its kind;
// anything else in the folders watched is nothing.
func TestWhatAFileEventIsAbout(t *testing.T) {
	p, err := PathsOf("/c", "session-0123abcd")
	if err != nil {
		t.Fatal(err)
	}
	m := Unwatched(p, "/s/events.jsonl", "/s/lead-queue.jsonl")
	for _, c := range []struct {
		name string
		want Kind
	}{
		{p.LeadInbox, Inbox},
		{p.Inboxes, Inbox},
		{filepath.Join(p.Inboxes, "mate.json"), ""},
		{"/s/events.jsonl", Events},
		{"/s/events.jsonl.1", ""},
		{"/s/lead-queue.jsonl", Queue},
		{p.Config, Config},
		{p.TeamDir, Config},
		{p.TasksDir, Tasks},
		{filepath.Join(p.TasksDir, "7.json"), Tasks},
		{filepath.Join(p.Teams, "session-77777777"), Teams},
		{"/c/settings.json", ""},
	} {
		if got := m.kind(c.name); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestTakeAndMove: Take hands back what was marked, once; every file when
// asked for all; Move follows another team's paths and has them read.
func TestTakeAndMove(t *testing.T) {
	p, _ := PathsOf("/c", "session-0123abcd")
	m := Unwatched(p, "/s/events.jsonl", "/s/lead-queue.jsonl")
	m.Mark(Events, "messages")
	if got := m.Take(false); len(got) != 2 || !got[Events] || !got["messages"] {
		t.Errorf("Take: %v", got)
	}
	if got := m.Take(false); len(got) != 0 {
		t.Errorf("Take again: %v", got)
	}
	if got := m.Take(true); len(got) != len(files) {
		t.Errorf("Take(true): %v", got)
	}
	q, _ := PathsOf("/c", "session-77777777")
	m.Move(q)
	if got := m.Take(false); len(got) != 3 || !got[Inbox] || !got[Config] || !got[Tasks] {
		t.Errorf("Take after Move: %v", got)
	}
	if m.Paths() != q {
		t.Errorf("paths after Move: %+v", m.Paths())
	}
	if got := m.kind(q.Config); got != Config {
		t.Errorf("the new team's config: %q", got)
	}
}

// TestRefsAreFollowed: a file FollowRefs gives, written as git writes a ref
// (a lock file renamed into place), is Refs; its lock file and the other
// files of its folder are nothing.
func TestRefsAreFollowed(t *testing.T) {
	dir := t.TempDir()
	stateDir := filepath.Join(dir, "state")
	refs := filepath.Join(dir, "refs", "heads", "teamctl", "t")
	for _, d := range []string{stateDir, refs} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	p, err := PathsOf(filepath.Join(dir, "home", ".claude"), "session-0123abcd")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Watch(p, filepath.Join(stateDir, "events.jsonl"), filepath.Join(stateDir, "lead-queue.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ref := filepath.Join(refs, "alice")
	m.FollowRefs([]string{ref, filepath.Join(dir, "gone", "HEAD")})
	if got := m.kind(filepath.Join(refs, "bob")); got != "" {
		t.Errorf("another ref is %q", got)
	}
	if got := m.kind(ref + ".lock"); got != "" {
		t.Errorf("the lock file is %q", got)
	}
	os.WriteFile(ref+".lock", []byte("0123\n"), 0o600)
	if err := os.Rename(ref+".lock", ref); err != nil {
		t.Fatal(err)
	}
	waitFor(t, m, Refs)
	if m.Take(true)[Refs] {
		t.Error("Take(true) hands back Refs, which nothing reads")
	}
}

// TestTranscriptsMarkedOncePerPeriod: a transcript written without pause is
// marked while the writes go on (not put off until they stop), and at most
// once every TranscriptsEvery; a folder followed before it exists is watched
// once it is given again, and a file in it written is marked.
func TestTranscriptsMarkedOncePerPeriod(t *testing.T) {
	const every = 50 * time.Millisecond
	dir := t.TempDir()
	m, _ := transcriptsWatch(t, dir, every, false)
	proj := filepath.Join(dir, ".claude", "projects", "-w")
	m.FollowTranscripts([]string{proj}) // not there yet: nothing watched
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	m.FollowTranscripts([]string{proj})
	f, err := os.Create(filepath.Join(proj, "s.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start, marks, writes := time.Now(), 0, 0
	deadline := time.After(10 * time.Second)
	for marks < 3 {
		if _, err := f.WriteString(`{"type":"user"}` + "\n"); err != nil {
			t.Fatal(err)
		}
		writes++
		select {
		case <-m.Fire():
			if m.Take(false)[Transcripts] {
				marks++
			}
		case <-deadline:
			t.Fatalf("%d marks of Transcripts in 10 s of %d writes", marks, writes)
		default:
		}
	}
	elapsed := time.Since(start)
	if most := int(elapsed/every) + 1; marks > most {
		t.Errorf("%d marks in %s: more than one every %s", marks, elapsed, every)
	}
	if writes <= marks {
		t.Errorf("%d writes made %d marks: not gathered", writes, marks)
	}
	// A session's subagents' folder, followed before it exists, is watched
	// once it is made in a folder watched: its files' writes are marked.
	subs := filepath.Join(proj, "s", "subagents")
	m.FollowTranscripts([]string{filepath.Join(proj, "s"), subs})
	if err := os.MkdirAll(subs, 0o700); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "the subagents' folder watched", func() (bool, string) {
		return slices.Contains(m.w.WatchList(), subs), strings.Join(m.w.WatchList(), " ")
	})
	m.Take(false)
	if err := os.WriteFile(filepath.Join(subs, "agent-1.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, m, Transcripts)
}

// TestTranscriptsUnwatchedUntilTheMark: once a transcript is written, its
// folder is not watched until the mark (a busy team's writes no longer wake
// the supervisor each); it is watched again by the mark, so what was
// written meanwhile is read at the look the mark brings, and a later write
// is marked again; a followed folder made meanwhile is watched too. The
// team's own folders are never unwatched.
func TestTranscriptsUnwatchedUntilTheMark(t *testing.T) {
	// Long enough that the folder is seen unwatched however slow the
	// machine: it is watched again at the mark.
	const every = 2 * time.Second
	dir := t.TempDir()
	m, p := transcriptsWatch(t, dir, every, true)
	proj := filepath.Join(dir, ".claude", "projects", "-w")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	subs := filepath.Join(proj, "s", "subagents")
	m.FollowTranscripts([]string{proj, filepath.Join(proj, "s"), subs, p.Inboxes}) // as the supervisor gives them
	watched := func(d string) bool { return slices.Contains(m.w.WatchList(), d) }
	if !watched(proj) {
		t.Fatal("the project folder is not watched")
	}
	if err := os.WriteFile(filepath.Join(proj, "s.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, "the project folder unwatched until the mark", func() (bool, string) {
		return !watched(proj), strings.Join(m.w.WatchList(), " ")
	})
	if !watched(p.Inboxes) {
		t.Error("the team's inboxes/ was unwatched with the transcripts")
	}
	if err := os.MkdirAll(subs, 0o700); err != nil { // made while unwatched
		t.Fatal(err)
	}
	waitFor(t, m, Transcripts)
	// Watched again by the mark (on a slow machine the folder may have come
	// after it, and is watched as it comes).
	testenv.Eventually(t, 10*time.Second, "the folders watched again", func() (bool, string) {
		return watched(proj) && watched(subs), strings.Join(m.w.WatchList(), " ")
	})
	m.Take(false)
	if err := os.WriteFile(filepath.Join(subs, "agent-1.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, m, Transcripts)
}

// transcriptsWatch is a Watcher of a team in dir whose transcripts are
// marked at most once every every, with the team's inboxes/ made first when
// inboxes; closed when the test ends.
func transcriptsWatch(t *testing.T, dir string, every time.Duration, inboxes bool) (*Watcher, Paths) {
	t.Helper()
	p, err := PathsOf(filepath.Join(dir, ".claude"), "session-0123abcd")
	if err != nil {
		t.Fatal(err)
	}
	if inboxes {
		if err := os.MkdirAll(p.Inboxes, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	m, err := Watch(p, filepath.Join(dir, "events.jsonl"), filepath.Join(dir, "lead-queue.jsonl"), Options{TranscriptsEvery: every})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m, p
}
