package claudecode

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// The helper processes of the tests below are this test binary re-executed (see
// TestMain), told what to do by these variables.
const (
	helperRoleEnv  = "TEAMCTL_TEST_HELPER"         // writer, reader or holder
	helperPathEnv  = "TEAMCTL_TEST_MAILBOX"        // the mailbox file
	helperIDEnv    = "TEAMCTL_TEST_WRITER"         // writer: its From
	helperCountEnv = "TEAMCTL_TEST_COUNT"          // writer: how many messages
	helperStopEnv  = "TEAMCTL_TEST_STOP"           // reader: stop once this exists and the mailbox is empty
	helperStaleEnv = "TEAMCTL_TEST_STALE_LOCK_AGE" // StaleLockAge, as a time.Duration
)

// readerLine is one line the reader helper prints: a message it took, or at the
// end how many times it read the file without the lock.
type readerLine struct {
	Took          *Message `json:"took,omitempty"`
	UnlockedReads int64    `json:"unlockedReads,omitempty"`
}

func runHelper(role string) int {
	var box mailboxes
	if s := os.Getenv(helperStaleEnv); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		box.staleLock = d
	}
	// No deadline of its own: the test decides when it has waited too long (and
	// kills it). It only stops by itself once the test process is gone.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func(parent int) {
		for os.Getppid() == parent {
			time.Sleep(time.Second) // polling: a parent's end has no portable notification
		}
		cancel()
	}(os.Getppid())
	path := os.Getenv(helperPathEnv)
	var err error
	switch role {
	case "writer":
		err = runWriter(ctx, box, path)
	case "reader":
		err = runReader(ctx, box, path)
	case "holder":
		// Takes the lock and keeps it until killed.
		err = box.update(ctx, path, func(msgs []Message) ([]Message, error) {
			time.Sleep(time.Hour)
			return msgs, nil
		})
	default:
		err = fmt.Errorf("unknown helper role %q", role)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", role, err)
		return 1
	}
	return 0
}

// runWriter appends messages 0, 1, ... from one writer.
func runWriter(ctx context.Context, box mailboxes, path string) error {
	id := os.Getenv(helperIDEnv)
	n, err := strconv.Atoi(os.Getenv(helperCountEnv))
	if err != nil {
		return err
	}
	for i := range n {
		m := Message{From: id, Text: strconv.Itoa(i), Timestamp: Timestamp(time.Now())}
		if err := box.append(ctx, path, m); err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
		// A pause, as real writers have, lets the others in: without one a writer
		// retakes the lock the instant it frees it, the mailbox grows to hundreds
		// of messages and every append reparses them all (slow under -race).
		time.Sleep(rand.N(2 * time.Millisecond))
	}
	return nil
}

// runReader empties the mailbox the way a Claude Code teammate does (under the
// lock: take every message, write back []) and prints what it took, while a
// goroutine reads the file without the lock each time it changes.
func runReader(ctx context.Context, box mailboxes, path string) error {
	stop := os.Getenv(helperStopEnv)
	var reads atomic.Int64
	var badRead atomic.Pointer[error]
	// The unlocked reads follow the file's changes (inotify on its folder): a
	// read at every change sees what each write leaves, even half of a write
	// done in place, without a reader spinning on a core the writers need.
	watch, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer watch.Close()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil { // as UpdateMailbox would
		return err
	}
	if err := watch.Add(filepath.Dir(path)); err != nil {
		return err
	}
	done := make(chan struct{})
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		for {
			select {
			case <-done:
				return
			case err := <-watch.Errors:
				if errors.Is(err, fsnotify.ErrEventOverflow) {
					continue // events were lost, not writes: read at the next change
				}
				badRead.CompareAndSwap(nil, &err)
				return
			case ev := <-watch.Events:
				if ev.Name != path {
					continue // the lock, the writers' temp files
				}
			}
			data, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				continue // renamed away meanwhile (a corrupt file is never)
			}
			if err == nil {
				err = checkArray(data)
			}
			if err != nil {
				badRead.CompareAndSwap(nil, &err)
				return
			}
			reads.Add(1)
		}
	}()
	stopReads := sync.OnceFunc(func() { close(done); <-readerDone })
	defer stopReads()

	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	for {
		if e := badRead.Load(); e != nil {
			return fmt.Errorf("read without the lock: %w", *e)
		}
		_, err := os.Stat(stop)
		stopping := err == nil
		var took []Message
		err = box.update(ctx, path, func(msgs []Message) ([]Message, error) {
			took = msgs
			return []Message{}, nil
		})
		if err != nil {
			return err
		}
		for i := range took {
			if err := enc.Encode(readerLine{Took: &took[i]}); err != nil {
				return err
			}
		}
		if len(took) > 0 {
			// At once, so that the test sees the progress.
			if err := out.Flush(); err != nil {
				return err
			}
		}
		// The stop file comes after the last writer ended: nothing more will come.
		if stopping && len(took) == 0 {
			break
		}
		// Claude Code polls far less often; this keeps the pressure on while
		// leaving the writers room (each take is a write under the lock too).
		time.Sleep(rand.N(20 * time.Millisecond))
	}
	stopReads()
	if e := badRead.Load(); e != nil {
		return fmt.Errorf("read without the lock: %w", *e)
	}
	if err := enc.Encode(readerLine{UnlockedReads: reads.Load()}); err != nil {
		return err
	}
	return out.Flush()
}

// checkArray fails unless data is a JSON array (an empty file or "null" is not).
func checkArray(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '[' {
		return fmt.Errorf("not a JSON array: %q", data)
	}
	var a []json.RawMessage
	if err := json.Unmarshal(data, &a); err != nil {
		return fmt.Errorf("not a JSON array (%w): %q", err, data)
	}
	return nil
}

// helper is a running helper process, killed when the test ends.
type helper struct {
	name   string
	cmd    *exec.Cmd
	stdout output
	stderr bytes.Buffer
	done   chan struct{} // closed once it has exited; err is then set
	err    error
}

// output is a helper's stdout, which the test watches for progress while the
// helper writes it.
type output struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	last time.Time // of the last write
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.last = time.Now()
	return o.buf.Write(p)
}

// lastWrite is when the helper last wrote (zero before its first write).
func (o *output) lastWrite() time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.last
}

// Bytes is what the helper wrote; only once it has exited.
func (o *output) Bytes() []byte { return o.buf.Bytes() }

func startHelper(t *testing.T, name string, env ...string) *helper {
	t.Helper()
	h := &helper{name: name, done: make(chan struct{})}
	h.cmd = exec.Command(os.Args[0])
	h.cmd.Env = append(os.Environ(), env...)
	h.cmd.Stdout = &h.stdout
	h.cmd.Stderr = &h.stderr
	if err := h.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		h.err = h.cmd.Wait()
		close(h.done)
	}()
	t.Cleanup(func() {
		select {
		case <-h.done:
		default:
			h.cmd.Process.Kill()
			<-h.done
		}
	})
	return h
}

// waitAll fails the test unless every one of hs exits successfully, and unless
// watched (if not nil) keeps running meanwhile. It gives up only after
// patience without progress: no helper exited and, if watched is not nil,
// watched wrote nothing. A loaded machine makes the whole slower, not stuck.
func waitAll(t *testing.T, patience time.Duration, watched *helper, hs ...*helper) {
	t.Helper()
	exited := make(chan *helper, len(hs))
	for _, h := range hs {
		go func() {
			<-h.done
			exited <- h
		}()
	}
	var early chan struct{} // nil: never ready
	if watched != nil {
		early = watched.done
	}
	progress := time.Now()
	check := time.NewTicker(time.Second)
	defer check.Stop()
	for left := len(hs); left > 0; {
		select {
		case h := <-exited:
			if h.err != nil {
				t.Fatalf("%s: %v\n%s", h.name, h.err, h.stderr.Bytes())
			}
			left--
			progress = time.Now()
		case <-early:
			t.Fatalf("%s exited early: %v\n%s", watched.name, watched.err, watched.stderr.Bytes())
		case <-check.C:
			if watched != nil && watched.stdout.lastWrite().After(progress) {
				progress = watched.stdout.lastWrite()
			}
			if time.Since(progress) > patience {
				t.Fatalf("%d helper(s) still running after %v without progress", left, patience)
			}
		}
	}
}

// TestMailboxConcurrentProcesses: 8 processes append 500 messages each to one
// mailbox while another keeps emptying it as Claude Code does and reading it
// without the lock. Nothing may be lost or duplicated, each writer's order is kept,
// and the file is a JSON array after every write: each write is read back under the
// lock by the next update (which fails on anything else) or, for the last, below,
// and the unlocked reads must never see anything else either.
//
// It takes about 5 s alone (its mailbox on /dev/shm, see memInbox) and longer
// on a loaded machine, so it fails only when nothing has moved for a minute;
// under -short it is skipped.
func TestMailboxConcurrentProcesses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a stress test of 8 processes; skipped under -short")
	}
	const writers, perWriter = 8, 500
	// The stale limit stays at its 10 s default here: a live writer descheduled
	// for a second on a loaded machine must not lose its lock.
	// Not in parallel: first among the package's tests, it runs while the
	// other packages' tests are starting, before cmd/teamctl's load the cores.
	p := memInbox(t)
	// The helpers need only the mailbox's path; a HOME and CLAUDE_CONFIG_DIR of
	// their own all the same, so that nothing they run can reach the real ones.
	home := []string{"HOME=" + t.TempDir(), "CLAUDE_CONFIG_DIR=" + t.TempDir()}
	stop := filepath.Join(t.TempDir(), "stop")
	const patience = time.Minute // without a message taken or a writer done
	start := time.Now()

	reader := startHelper(t, "reader", append(home, helperRoleEnv+"=reader", helperPathEnv+"="+p, helperStopEnv+"="+stop)...)
	var ws []*helper
	for w := range writers {
		id := fmt.Sprint("w", w)
		ws = append(ws, startHelper(t, "writer "+id, append(home, helperRoleEnv+"=writer", helperPathEnv+"="+p,
			helperIDEnv+"="+id, helperCountEnv+"="+strconv.Itoa(perWriter))...))
	}
	waitAll(t, patience, reader, ws...)
	if err := os.WriteFile(stop, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitAll(t, patience, nil, reader)
	t.Logf("%d×%d appends and emptying in %v", writers, perWriter, time.Since(start).Round(time.Millisecond))

	var got []Message
	var unlockedReads int64
	sc := bufio.NewScanner(bytes.NewReader(reader.stdout.Bytes()))
	for sc.Scan() {
		var l readerLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("reader printed %q: %v", sc.Bytes(), err)
		}
		if l.Took != nil {
			got = append(got, *l.Took)
		}
		unlockedReads += l.UnlockedReads
	}
	taken := len(got)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkArray(data); err != nil {
		t.Fatalf("final file: %v", err)
	}
	left, err := ReadMailbox(p)
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, left...)
	t.Logf("reader took %d, %d left in the file, %d reads without the lock", taken, len(left), unlockedReads)
	if unlockedReads == 0 {
		t.Error("the reader never read the file without the lock")
	}

	if len(got) != writers*perWriter {
		t.Errorf("%d messages in all, want %d", len(got), writers*perWriter)
	}
	// Each writer's messages, in the order taken, must be exactly 0, 1, ... 499.
	seq := map[string][]string{}
	for _, m := range got {
		seq[m.From] = append(seq[m.From], m.Text)
	}
	for w := range writers {
		id := fmt.Sprint("w", w)
		texts := seq[id]
		delete(seq, id)
		for i, text := range texts {
			if text != strconv.Itoa(i) {
				t.Errorf("from %s: message %d is %s (%d messages; lost, duplicated or reordered)", id, i, text, len(texts))
				break
			}
		}
		if len(texts) != perWriter {
			t.Errorf("from %s: %d messages, want %d", id, len(texts), perWriter)
		}
	}
	for id := range seq {
		t.Errorf("messages from unknown writer %q", id)
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("left beside the mailbox: %v", names)
	}
}

// TestKilledLockHolderDelaysOthersAtMostStaleLimit: a writer killed while holding
// the lock delays another by the stale limit, no more, and no less either: a live
// holder's lock is not broken.
func TestKilledLockHolderDelaysOthersAtMostStaleLimit(t *testing.T) {
	t.Parallel()
	const stale = time.Second
	// Backoff (under 2×lockWaitCap) plus scheduling, which on a loaded machine
	// can take hundreds of milliseconds; a lock broken at 1.5× the stale limit
	// or later still fails.
	const margin = stale / 2
	box := mailboxes{staleLock: stale}
	p := tempInbox(t)
	lock := p + ".lock"

	holder := startHelper(t, "holder", helperRoleEnv+"=holder", helperPathEnv+"="+p,
		helperStaleEnv+"="+stale.String())
	var seen fs.FileInfo
	for wait := time.Now().Add(time.Minute); seen == nil; { // a process start, on a loaded machine
		fi, err := os.Stat(lock)
		switch {
		case err == nil:
			seen = fi
		case !errors.Is(err, fs.ErrNotExist):
			t.Fatal(err)
		case time.Now().After(wait):
			t.Fatal("the holder never took the lock")
		}
		select {
		case <-holder.done:
			t.Fatalf("holder exited: %v\n%s", holder.err, holder.stderr.Bytes())
		case <-time.After(2 * time.Millisecond):
		}
	}

	type result struct {
		err  error
		took time.Duration
	}
	res := make(chan result, 1)
	ctx, cancel := context.WithCancel(context.Background())
	appended := make(chan struct{})
	t.Cleanup(func() { cancel(); <-appended })
	start := time.Now()
	go func() {
		defer close(appended)
		err := box.append(ctx, p, Message{From: "after", Text: "0", Timestamp: "t"})
		res <- result{err, time.Since(start)}
	}()

	// Keep the holder alive with the append waiting for half the stale limit.
	select {
	case r := <-res:
		t.Fatalf("append done while the holder was alive (after %v): %v", r.took, r.err)
	case <-holder.done:
		t.Fatalf("holder exited: %v\n%s", holder.err, holder.stderr.Bytes())
	case <-time.After(time.Until(seen.ModTime().Add(stale / 2))):
	}
	if fi, err := os.Stat(lock); err != nil || !sameLock(fi, seen) {
		t.Fatalf("lock broken while its holder was alive (%v)", err)
	}
	if err := holder.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-holder.done
	if ws, ok := holder.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("holder ended otherwise than killed: %v\n%s", holder.err, holder.stderr.Bytes())
	}

	var r result
	select {
	case r = <-res:
	case <-time.After(time.Minute): // the bound is checked below; this only ends a hang
		t.Fatal("append still waiting long after the stale limit")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	// From the lock's mtime, not from start: the append began a little after the
	// lock was taken.
	held := start.Add(r.took).Sub(seen.ModTime())
	t.Logf("append took %v, %v after the lock was taken (stale limit %v)", r.took, held, stale)
	if r.took > stale+margin {
		t.Errorf("append took %v, more than the stale limit %v", r.took, stale)
	}
	if held < stale {
		t.Errorf("lock broken %v after it was taken, before the stale limit %v", held, stale)
	}
	msgs, err := ReadMailbox(p)
	if err != nil || len(msgs) != 1 || msgs[0].From != "after" {
		t.Errorf("mailbox: %+v %v", msgs, err)
	}
	if left, _ := filepath.Glob(p + ".*"); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
