package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// tempInbox is an inbox path in a temp folder of t's own, for a test that runs
// in parallel (inbox's t.Setenv cannot be): the mailbox functions need only it.
func tempInbox(t *testing.T) string {
	return filepath.Join(t.TempDir(), "teams", "session-12345678", "inboxes", "researcher.json")
}

// memInbox is tempInbox on a memory file system (/dev/shm) when there is one.
// The stress test is about the lock and the atomic replacement between
// processes, which tmpfs keeps as a disk's file system does; on a disk each of
// its ~5000 writes waits for an fsync, that is for the journal that every other
// test's writes fill: beside cmd/teamctl's tests it took 15-28 s, not 5.
func memInbox(t *testing.T) string {
	dir, err := os.MkdirTemp("/dev/shm", "teamctl-mailbox-")
	if err != nil {
		return tempInbox(t) // no /dev/shm: on disk, only slower
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "teams", "session-12345678", "inboxes", "researcher.json")
}

func inbox(t *testing.T) string {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	dir, err := ConfigDir()
	if err != nil {
		t.Fatal(err)
	}
	p, err := InboxPath(dir, "session-12345678", "researcher")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestTimestamp(t *testing.T) {
	t.Parallel()
	tm := time.Date(2026, 5, 1, 12, 3, 4, 5_000_000, time.FixedZone("x", 3600))
	if got := Timestamp(tm); got != "2026-05-01T11:03:04.005Z" {
		t.Errorf("Timestamp = %q", got)
	}
	m := PromptMessage("do it", tm)
	if m.From != "team-lead" || m.Text != "do it" || m.Read || m.Timestamp != "2026-05-01T11:03:04.005Z" {
		t.Errorf("PromptMessage = %+v", m)
	}
}

func TestAppendCreatesFoldersAndKeepsOrder(t *testing.T) {
	p := inbox(t)
	ctx := ctxFor(t, 10*time.Second)
	for i := range 3 {
		if err := AppendMessage(ctx, p, Message{From: "team-lead", Text: fmt.Sprint("m", i), Timestamp: "t"}); err != nil {
			t.Fatal(err)
		}
	}
	msgs, err := ReadMailbox(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 3 || msgs[0].Text != "m0" || msgs[1].Text != "m1" || msgs[2].Text != "m2" {
		t.Fatalf("messages = %+v", msgs)
	}
	if msgs[0] != (Message{From: "team-lead", Text: "m0", Timestamp: "t"}) {
		t.Errorf("round trip: %+v", msgs[0])
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mailbox mode: %v %v", fi.Mode(), err)
	}
	di, err := os.Stat(filepath.Dir(p))
	if err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("inboxes mode: %v %v", di.Mode(), err)
	}
	data, _ := os.ReadFile(p)
	if !bytes.HasPrefix(data, []byte("[\n  {\n    \"from\": \"team-lead\",")) {
		t.Errorf("not two-space indented:\n%s", data)
	}
	if _, err := os.Stat(p + ".lock"); !os.IsNotExist(err) {
		t.Errorf("lock left behind: %v", err)
	}
}

func TestReadMailboxMissingIsEmpty(t *testing.T) {
	t.Parallel()
	msgs, err := ReadMailbox(filepath.Join(t.TempDir(), "none.json"))
	if err != nil || len(msgs) != 0 {
		t.Errorf("got %v, %v", msgs, err)
	}
}

func TestHeldLockMakesAppendWaitAndFail(t *testing.T) {
	t.Parallel()
	p := tempInbox(t)
	if err := os.MkdirAll(p+".lock", 0o700); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := AppendMessage(ctxFor(t, 300*time.Millisecond), p, Message{From: "x", Text: "y"})
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "held") {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) < 250*time.Millisecond {
		t.Errorf("gave up after %v, before the deadline", time.Since(start))
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("mailbox written while locked: %v", err)
	}
	if _, err := os.Stat(p + ".lock"); err != nil {
		t.Errorf("someone else's lock removed: %v", err)
	}
}

func TestStaleLockIsBroken(t *testing.T) {
	p := inbox(t)
	if err := os.MkdirAll(p+".lock", 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(p+".lock", old, old); err != nil {
		t.Fatal(err)
	}
	if err := AppendMessage(ctxFor(t, 10*time.Second), p, Message{From: "x", Text: "y"}); err != nil {
		t.Fatal(err)
	}
	if msgs, err := ReadMailbox(p); err != nil || len(msgs) != 1 {
		t.Errorf("after breaking: %v %v", msgs, err)
	}
	left, _ := filepath.Glob(p + ".lock*")
	if len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// staleDir makes dir (if missing) with an mtime a minute old and returns its stat.
func staleDir(t *testing.T, dir string) os.FileInfo {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

func TestBreakLockBreaksOnlyTheStaleLockSeen(t *testing.T) {
	p := inbox(t)
	lock, brk := p+".lock", p+".lock.break"
	exists := func(what, p string) {
		t.Helper()
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	gone := func(what, p string) {
		t.Helper()
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %v", what, err)
		}
	}

	// Another waiter broke the stale lock seen and a third writer took a fresh one
	// (which may even get the same inode).
	seen := staleDir(t, lock)
	os.Remove(lock)
	os.Mkdir(lock, 0o700)
	if ok, err := breakLock(lock, seen); ok || err != nil {
		t.Errorf("fresh lock: %v %v", ok, err)
	}
	exists("fresh lock removed", lock)

	// Same directory, but its live holder refreshed the mtime (Claude Code does).
	seen = staleDir(t, lock)
	now := time.Now()
	os.Chtimes(lock, now, now)
	if ok, err := breakLock(lock, seen); ok || err != nil {
		t.Errorf("refreshed lock: %v %v", ok, err)
	}
	exists("refreshed lock removed", lock)

	// Another waiter is breaking it right now.
	seen = staleDir(t, lock)
	os.Mkdir(brk, 0o700)
	if ok, err := breakLock(lock, seen); ok || err != nil {
		t.Errorf("while another breaks it: %v %v", ok, err)
	}
	exists("lock broken by two at once", lock)
	exists("live break lock removed", brk)

	// That waiter died: its break lock goes, and the next attempt breaks the lock.
	staleDir(t, brk)
	if ok, err := breakLock(lock, seen); ok || err != nil {
		t.Errorf("dead breaker: %v %v", ok, err)
	}
	gone("dead breaker's break lock", brk)
	if ok, err := breakLock(lock, seen); !ok || err != nil {
		t.Errorf("stale lock: %v %v", ok, err)
	}
	gone("stale lock", lock)
	if left, _ := filepath.Glob(p + ".*"); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestStaleLockBrokenByOneOfManyWaiters(t *testing.T) {
	t.Parallel()
	p := tempInbox(t)
	const rounds, waiters = 20, 8
	ctx := ctxFor(t, time.Minute)
	var inside atomic.Int32
	for r := range rounds {
		staleDir(t, p+".lock")
		var wg sync.WaitGroup
		errs := make(chan error, waiters)
		for w := range waiters {
			wg.Go(func() {
				errs <- UpdateMailbox(ctx, p, func(m []Message) ([]Message, error) {
					if n := inside.Add(1); n != 1 {
						t.Errorf("round %d: %d holders at once", r, n)
					}
					time.Sleep(time.Millisecond)
					inside.Add(-1)
					return append(m, Message{From: fmt.Sprint(w), Text: fmt.Sprint(r)}), nil
				})
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if msgs, err := ReadMailbox(p); err != nil || len(msgs) != rounds*waiters {
		t.Errorf("%d messages, want %d (%v)", len(msgs), rounds*waiters, err)
	}
}

func TestBrokenHolderLeavesTheNextLock(t *testing.T) {
	p := inbox(t)
	os.MkdirAll(filepath.Dir(p), 0o700)
	unlock, err := mailboxes{}.lock(ctxFor(t, 5*time.Second), p)
	if err != nil {
		t.Fatal(err)
	}
	// Its lock was broken as stale and another writer took the lock, StaleLockAge
	// later (which may reuse the inode).
	os.Remove(p + ".lock")
	os.Mkdir(p+".lock", 0o700)
	later := time.Now().Add(StaleLockAge)
	os.Chtimes(p+".lock", later, later)
	unlock()
	if _, err := os.Stat(p + ".lock"); err != nil {
		t.Errorf("next holder's lock removed: %v", err)
	}
}

func TestDeadBreakersBreakLockIsRemoved(t *testing.T) {
	p := inbox(t)
	staleDir(t, p+".lock")
	staleDir(t, p+".lock.break")
	if err := AppendMessage(ctxFor(t, 10*time.Second), p, Message{From: "x", Text: "y"}); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(p + ".*"); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestCorruptMailboxIsNeverOverwritten(t *testing.T) {
	p := inbox(t)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	bad := []byte(`[{"from":"a","text":"half`)
	if err := os.WriteFile(p, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	called := false
	err := UpdateMailbox(ctxFor(t, 5*time.Second), p, func(m []Message) ([]Message, error) {
		called = true
		return m, nil
	})
	var ce *CorruptMailboxError
	if !errors.As(err, &ce) || ce.Path != p || ce.Copy == "" || errors.Unwrap(err) == nil {
		t.Fatalf("err = %#v", err)
	}
	if called {
		t.Error("fn called on a corrupt mailbox")
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, bad) {
		t.Errorf("mailbox changed: %q", got)
	}
	copies, _ := filepath.Glob(p + ".corrupt*")
	if len(copies) != 1 || copies[0] != ce.Copy {
		t.Fatalf("copies = %v, error says %q", copies, ce.Copy)
	}
	if got, _ := os.ReadFile(ce.Copy); !bytes.Equal(got, bad) {
		t.Errorf("copy = %q", got)
	}
	// Every later write to the corrupt mailbox (a retried send, a stand-in
	// polling it) adds no copy: one is kept, the first.
	for range 5 {
		if err := AppendMessage(ctxFor(t, 5*time.Second), p, Message{Text: "x"}); !errors.As(err, &ce) || ce.Copy != p+".corrupt" {
			t.Fatalf("err = %v", err)
		}
	}
	if copies, _ := filepath.Glob(p + ".corrupt*"); len(copies) != 1 {
		t.Errorf("copies after retries: %v", copies)
	}
	if _, err := ReadMailbox(p); !errors.As(err, &ce) {
		t.Errorf("ReadMailbox err = %v", err)
	}
	// Valid JSON of the wrong shape is corrupt too.
	for _, s := range []string{`{"from":"a"}`, `[1]`, `[null]`, `[{"read":"yes"}]`} {
		os.WriteFile(p, []byte(s), 0o600)
		if err := AppendMessage(ctxFor(t, 5*time.Second), p, Message{}); !errors.As(err, &ce) {
			t.Errorf("%s: err = %v", s, err)
		}
		if got, _ := os.ReadFile(p); string(got) != s {
			t.Errorf("%s: rewritten as %s", s, got)
		}
	}
}

func TestEmptyMailboxFileIsEmpty(t *testing.T) {
	p := inbox(t)
	os.MkdirAll(filepath.Dir(p), 0o700)
	os.WriteFile(p, nil, 0o600)
	if err := AppendMessage(ctxFor(t, 5*time.Second), p, Message{Text: "x"}); err != nil {
		t.Fatal(err)
	}
	if msgs, err := ReadMailbox(p); err != nil || len(msgs) != 1 {
		t.Errorf("%v %v", msgs, err)
	}
}

func TestUnknownFieldsSurviveRewrite(t *testing.T) {
	p := inbox(t)
	os.MkdirAll(filepath.Dir(p), 0o700)
	orig := `[{"from":"team-lead","text":"<teammate-message> & hi","timestamp":"t","read":false,` +
		`"id":"abc","meta":{"n":[1,2,{"deep":true}]}}]`
	os.WriteFile(p, []byte(orig), 0o600)
	err := UpdateMailbox(ctxFor(t, 5*time.Second), p, func(m []Message) ([]Message, error) {
		for i := range m {
			m[i].Read = true
		}
		return append(m, Message{From: "x", Text: "new", Timestamp: "t"}), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	var raw []map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw) != 2 || raw[0]["id"] != "abc" || raw[0]["read"] != true {
		t.Fatalf("rewritten: %s", data)
	}
	meta, _ := json.Marshal(raw[0]["meta"])
	if string(meta) != `{"n":[1,2,{"deep":true}]}` {
		t.Errorf("meta = %s", meta)
	}
	if len(raw[1]) != 4 { // from, text, timestamp, read
		t.Errorf("new message grew fields: %v", raw[1])
	}
	if !bytes.Contains(data, []byte("<teammate-message> & hi")) {
		t.Errorf("text escaped:\n%s", data)
	}
}

// A mailbox over MaxMailboxBytes is neither loaded by a read nor by an update:
// both say how large it is, quickly, and the file is left as it is.
func TestMailboxOverTheLimitIsNotLoaded(t *testing.T) {
	box := mailboxes{maxBytes: 1000}
	p := inbox(t)
	os.MkdirAll(filepath.Dir(p), 0o700)
	var msgs []Message
	for i := range 20 {
		msgs = append(msgs, Message{From: "mate", Text: strings.Repeat("x", 50), Timestamp: fmt.Sprint(i)})
	}
	big, _ := json.Marshal(msgs)
	os.WriteFile(p, big, 0o600)
	var tl *MailboxTooLargeError
	if _, err := box.read(p); !errors.As(err, &tl) || tl.Size != int64(len(big)) || tl.Limit != 1000 ||
		!strings.Contains(err.Error(), p+" is too large to read ("+fmt.Sprint(len(big))+" bytes; teamctl reads up to 1000 bytes)") {
		t.Errorf("ReadMailbox: %v", err)
	}
	if err := box.append(ctxFor(t, 5*time.Second), p, Message{Text: "y"}); !errors.As(err, &tl) {
		t.Errorf("AppendMessage: %v", err)
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, big) {
		t.Error("the mailbox was changed")
	}
	// Under the limit it reads as ever.
	os.WriteFile(p, big[:0], 0o600)
	if _, err := box.read(p); err != nil {
		t.Error(err)
	}
}
