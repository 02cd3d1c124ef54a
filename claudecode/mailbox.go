package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/teamctl/teamctl/internal/atomicfile"
)

// Message is one entry of a mailbox (teams/TEAM/inboxes/NAME.json). Text holds plain
// text or a JSON protocol message encoded as a string. Fields Claude Code adds that
// this type does not know are kept across a read-modify-write.
type Message struct {
	From      string `json:"from"`
	Text      string `json:"text"`
	Summary   string `json:"summary,omitempty"`
	Timestamp string `json:"timestamp"`
	Color     string `json:"color,omitempty"`
	Read      bool   `json:"read"`

	extra string // unknown members as a JSON object ("" when none); a string keeps Message comparable
}

type messageFields Message // no methods: plain encoding of the known fields

var knownMessageKeys = []string{"from", "text", "summary", "timestamp", "color", "read"}

// UnmarshalJSON decodes a message object and remembers members it does not know.
func (m *Message) UnmarshalJSON(data []byte) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	if all == nil {
		return errors.New("message is null, not an object")
	}
	var f messageFields
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	*m = Message(f)
	for _, k := range knownMessageKeys {
		delete(all, k)
	}
	m.extra = ""
	if len(all) > 0 {
		b, err := marshalNoEscape(all)
		if err != nil {
			return err
		}
		m.extra = string(b)
	}
	return nil
}

// MarshalJSON encodes the known fields followed by any unknown ones read earlier.
func (m Message) MarshalJSON() ([]byte, error) {
	b, err := marshalNoEscape(messageFields(m))
	if err != nil || m.extra == "" {
		return b, err
	}
	// Both are objects: splice "{known}" and "{extra}" into "{known,extra}".
	out := append(b[:len(b)-1:len(b)-1], ',')
	return append(out, m.extra[1:]...), nil
}

// marshalNoEscape is json.Marshal without HTML escaping, so text like
// <teammate-message> stays readable in the file.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Timestamp formats t as Claude Code does in mailboxes: UTC, RFC 3339 with
// milliseconds and a Z.
func Timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// PromptMessage is a plain-text message from the lead: how Claude Code hands a
// teammate its first prompt (and any later instruction).
func PromptMessage(text string, now time.Time) Message {
	return Message{From: LeadMailboxName, Text: text, Timestamp: Timestamp(now)}
}

// CorruptMailboxError says a mailbox file is not a JSON array of messages. The file
// is left as it is; Copy, when not empty, is a copy of it kept for inspection.
type CorruptMailboxError struct {
	Path string
	Copy string
	Err  error
}

func (e *CorruptMailboxError) Error() string {
	if e.Copy == "" {
		return fmt.Sprintf("mailbox %s is corrupt (left untouched): %v", e.Path, e.Err)
	}
	return fmt.Sprintf("mailbox %s is corrupt (left untouched, copy at %s): %v", e.Path, e.Copy, e.Err)
}

func (e *CorruptMailboxError) Unwrap() error { return e.Err }

// parseMailbox decodes a mailbox file. An empty (or blank) file or "null" holds no
// messages: there is nothing in it to lose.
func parseMailbox(data []byte) ([]Message, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var msgs []Message
	if err := json.Unmarshal(data, &msgs); err != nil {
		return nil, err
	}
	return msgs, nil
}

// MaxMailboxBytes is the largest mailbox teamctl reads: a larger one is
// reported (*MailboxTooLargeError), not loaded whole (a 231 MB lead inbox once
// took the supervisor to 905 MB). Claude Code empties mailboxes as it reads
// them, so only a stuck one grows this large.
const MaxMailboxBytes int64 = 16 << 20

// StaleLockAge is how old a mailbox lock may get before it is taken to be left over
// by a dead writer and broken. Claude Code's lockfile library uses 10 seconds.
const StaleLockAge = 10 * time.Second

// mailboxes is how mailboxes are read and locked: their limits, the zero
// value's MaxMailboxBytes and StaleLockAge (ReadMailbox, UpdateMailbox and
// AppendMessage), or a test's.
type mailboxes struct {
	maxBytes  int64         // the largest mailbox read; 0: MaxMailboxBytes
	staleLock time.Duration // how old a lock gets before it is broken; 0: StaleLockAge
}

func (b mailboxes) limit() int64 {
	if b.maxBytes > 0 {
		return b.maxBytes
	}
	return MaxMailboxBytes
}

func (b mailboxes) stale() time.Duration {
	if b.staleLock > 0 {
		return b.staleLock
	}
	return StaleLockAge
}

// readFile reads a mailbox file, refusing one over the limit before
// reading it, and one that is, or whose inboxes/ or team folder is, a
// symlink (*LinkError). A missing file is empty (nil, nil).
func (b mailboxes) readFile(path string) ([]byte, error) {
	if err := noLinksAbove(path, 2); err != nil {
		return nil, err
	}
	data, err := readCapped(path, "mailbox", b.limit())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// ReadMailbox reads a mailbox (teams/TEAM/inboxes/NAME.json) without locking
// it. A missing file is an empty mailbox; a file that does not parse gives a
// *CorruptMailboxError (without Copy), one over MaxMailboxBytes a
// *MailboxTooLargeError, and a symlink at the file, its inboxes/ or its team
// folder a *LinkError.
func ReadMailbox(path string) ([]Message, error) { return mailboxes{}.read(path) }

func (b mailboxes) read(path string) ([]Message, error) {
	data, err := b.readFile(path)
	if err != nil {
		return nil, err
	}
	msgs, err := parseMailbox(data)
	if err != nil {
		return nil, &CorruptMailboxError{Path: path, Err: err}
	}
	return msgs, nil
}

// UpdateMailbox changes a mailbox under Claude Code's lock discipline: it takes the
// lock directory path+".lock" (waiting, with backoff, until ctx ends; breaking a lock
// older than StaleLockAge), reads the messages, calls fn and writes what fn returns
// atomically (0600, two-space indented JSON). A file that does not parse is never
// overwritten: it is copied to path+".corrupt" (once: a copy already there is
// kept, so retries do not pile up copies) and a *CorruptMailboxError is
// returned. A file over MaxMailboxBytes is neither read nor written
// (*MailboxTooLargeError), nor is anything written through a symlink at the
// file, its inboxes/ or its team folder (*LinkError). When fn returns an
// error nothing is written.
func UpdateMailbox(ctx context.Context, path string, fn func([]Message) ([]Message, error)) error {
	return mailboxes{}.update(ctx, path, fn)
}

func (b mailboxes) update(ctx context.Context, path string, fn func([]Message) ([]Message, error)) error {
	// Before MkdirAll (which follows links) and after it (in case one was
	// made meanwhile): the lock, the mailbox and any .corrupt copy go there.
	if err := noLinksAbove(path, 2); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("mailbox %s: %w", path, err)
	}
	if err := noLinksAbove(path, 2); err != nil {
		return err
	}
	unlock, err := b.lock(ctx, path)
	if err != nil {
		return err
	}
	defer unlock()

	data, err := b.readFile(path)
	var large *MailboxTooLargeError
	var link *LinkError
	if errors.As(err, &large) || errors.As(err, &link) {
		return err
	}
	if err != nil {
		return fmt.Errorf("mailbox %s: %w", path, err)
	}
	msgs, perr := parseMailbox(data)
	if perr != nil {
		cp := path + ".corrupt"
		if _, err := atomicfile.WriteNew(cp, data, 0o600); err != nil {
			cp = ""
		}
		return &CorruptMailboxError{Path: path, Copy: cp, Err: perr}
	}
	msgs, err = fn(msgs)
	if err != nil {
		return err
	}
	if msgs == nil {
		msgs = []Message{}
	}
	out, err := marshalNoEscape(msgs)
	if err != nil {
		return fmt.Errorf("mailbox %s: %w", path, err)
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, out, "", "  "); err != nil {
		return fmt.Errorf("mailbox %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, ind.Bytes(), 0o600)
}

// AppendMessage adds m at the end of the mailbox at path.
func AppendMessage(ctx context.Context, path string, m Message) error {
	return mailboxes{}.append(ctx, path, m)
}

func (b mailboxes) append(ctx context.Context, path string, m Message) error {
	return b.update(ctx, path, func(msgs []Message) ([]Message, error) {
		return append(msgs, m), nil
	})
}

// lockWaitCap caps the backoff between attempts at a held lock. Locks are held for
// about a millisecond, so a long cap mostly leaves the lock free while its waiters
// sleep: at 100 ms, 8 processes appending 500 messages each to one mailbox took
// over three times as long as at 10 ms. Polling every 10-20 ms costs next to nothing.
const lockWaitCap = 10 * time.Millisecond

// staleBreakAge is how old a break lock (lock+".break") may get before it is taken
// to be left over by a dead breaker: a live one holds it for a stat and a rename.
const staleBreakAge = 3 * time.Second

// lock takes path+".lock" and returns the function that releases it.
func (b mailboxes) lock(ctx context.Context, path string) (func(), error) {
	lock := path + ".lock"
	wait := 2 * time.Millisecond
	for {
		err := os.Mkdir(lock, 0o700)
		if err == nil {
			ours, err := os.Lstat(lock)
			if err != nil {
				os.Remove(lock)
				return nil, fmt.Errorf("mailbox %s: stat own lock: %w", path, err)
			}
			return func() {
				// A holder slower than StaleLockAge may have had its lock broken and
				// retaken by another writer: remove only its own.
				if fi, err := os.Lstat(lock); err == nil && sameLock(fi, ours) {
					os.RemoveAll(lock)
				}
			}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("mailbox %s: take lock: %w", path, err)
		}
		fi, err := os.Lstat(lock)
		if errors.Is(err, fs.ErrNotExist) {
			continue // released meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("mailbox %s: stat lock: %w", path, err)
		}
		age := time.Since(fi.ModTime())
		if age > b.stale() {
			gone, err := breakLock(lock, fi)
			if err != nil {
				return nil, fmt.Errorf("mailbox %s: break stale lock: %w", path, err)
			}
			if gone {
				continue
			}
		}
		t := time.NewTimer(wait + rand.N(wait))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("mailbox %s: lock %s is held (taken %s ago): %w",
				path, lock, age.Round(time.Millisecond), ctx.Err())
		case <-t.C:
		}
		wait = min(wait*2, lockWaitCap)
	}
}

// sameLock reports whether two stats of a lock are of the same directory, untouched:
// inode numbers are reused once a lock is removed, and Claude Code's holders refresh
// the mtime of a lock they still hold.
func sameLock(a, b fs.FileInfo) bool {
	return os.SameFile(a, b) && a.ModTime().Equal(b.ModTime())
}

// breakLock removes lock if it is still the stale directory seen, and reports
// whether the lock is gone (so the caller may retry at once). Breakers take the
// break lock lock+".break" first: otherwise a waiter that saw the stale lock could,
// after another waiter broke it, remove the fresh lock a third writer just took.
func breakLock(lock string, seen fs.FileInfo) (bool, error) {
	brk := lock + ".break"
	if err := os.Mkdir(brk, 0o700); err != nil {
		if !errors.Is(err, fs.ErrExist) {
			return false, fmt.Errorf("take break lock: %w", err)
		}
		// Another waiter is breaking it, unless that one died doing so.
		if fi, err := os.Lstat(brk); err == nil && time.Since(fi.ModTime()) > staleBreakAge {
			os.Remove(brk)
		}
		return false, nil
	}
	defer os.Remove(brk)
	fi, err := os.Lstat(lock)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("stat lock: %w", err)
	}
	// Same directory with the same mtime, so still as stale as when seen.
	if !sameLock(fi, seen) {
		return false, nil
	}
	aside := fmt.Sprintf("%s.stale-%d-%d", lock, time.Now().UnixNano(), rand.Uint32())
	if err := os.Rename(lock, aside); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return true, nil
		}
		return false, fmt.Errorf("move lock aside: %w", err)
	}
	os.RemoveAll(aside) // the lock is free either way; a leftover harms no one
	return true, nil
}

// MessageKey identifies a message across copies of a mailbox (teamctl's
// relay between hosts): who wrote it, when, and what; Claude Code gives a
// message no id of its own.
func MessageKey(m Message) string { return m.From + "\x00" + m.Timestamp + "\x00" + m.Text }

// AppendNew appends to the mailbox at path those of msgs it does not hold
// (by MessageKey), under its lock, and reports how many it appended: a
// relay's delivery sent twice is taken once.
func AppendNew(ctx context.Context, path string, msgs []Message) (int, error) {
	n := 0
	err := UpdateMailbox(ctx, path, func(have []Message) ([]Message, error) {
		seen := make(map[string]bool, len(have))
		for _, m := range have {
			seen[MessageKey(m)] = true
		}
		for _, m := range msgs {
			if k := MessageKey(m); !seen[k] {
				seen[k] = true
				have = append(have, m)
				n++
			}
		}
		return have, nil
	})
	return n, err
}

// RemoveMessages takes the messages whose MessageKey is in keys out of the
// mailbox at path, under its lock: what a relay delivered to the host where
// the mailbox's owner reads it.
func RemoveMessages(ctx context.Context, path string, keys map[string]bool) error {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return UpdateMailbox(ctx, path, func(have []Message) ([]Message, error) {
		out := have[:0]
		for _, m := range have {
			if !keys[MessageKey(m)] {
				out = append(out, m)
			}
		}
		return out, nil
	})
}
