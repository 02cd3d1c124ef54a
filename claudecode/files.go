package claudecode

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/teamctl/teamctl/internal/safefile"
)

// Claude Code's team files are written by its agents, which run as the user:
// anything can be there. So every file teamctl reads from them is bounded (a
// 400 MB task file and a 300 MB config.json once took the supervisor to
// 1 GB) and read where it is: a symlink at a team's folder, its inboxes/,
// its tasks folder or one of their files is never followed (an inboxes/
// linked elsewhere once had teamctl read a mailbox there and write a
// .corrupt copy beside it). The folders above a team's (the config folder,
// teams/, tasks/) are the person's to place, and may be links.

// The largest files teamctl reads from Claude Code's folders. Claude Code's
// own are a few KiB (a team config, a task) or are emptied as they are read
// (a mailbox, MaxMailboxBytes).
const (
	MaxTeamConfigBytes   = 4 << 20  // teams/TEAM/config.json; a lead's spawned members' prompts are in it
	MaxTaskBytes         = 1 << 20  // tasks/TEAM/ID.json
	MaxGlobalConfigBytes = 64 << 20 // .claude.json, which grows with the projects a person opened
	MaxSettingsBytes     = 1 << 20  // a --settings file, as large as a layout may be
)

// MaxTaskFiles is how many files of a tasks folder ReadTasks reads; the rest
// are left out, said so.
const MaxTaskFiles = 10000

// TooLargeError says a file of Claude Code's is larger than teamctl reads,
// and was not read.
type TooLargeError struct {
	What  string // "mailbox", "team config", "task file", …
	Path  string
	Size  int64
	Limit int64
}

// MailboxTooLargeError says a mailbox is over MaxMailboxBytes and was not read.
type MailboxTooLargeError = TooLargeError

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s %s is too large to read (%s; teamctl reads up to %s): move it aside and look at it with other tools",
		e.What, e.Path, humanBytes(e.Size), humanBytes(e.Limit))
}

func humanBytes(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// ErrLink is the error (wrapped, by *LinkError) of a read or write that met
// a symlink in a Claude Code team's folders.
var ErrLink = errors.New("symlink in a Claude Code team's folders")

// LinkError says a file or folder of a Claude Code team is a symlink, which
// teamctl does not follow: it would read or write wherever it points.
type LinkError struct {
	Path string
}

func (e *LinkError) Error() string {
	target, _ := os.Readlink(e.Path)
	return fmt.Sprintf("%s is a symlink (to %s): teamctl follows none in Claude Code's team and task folders", e.Path, target)
}

func (e *LinkError) Unwrap() error { return ErrLink }

// noLinksAbove makes sure none of the n folders right above path is a
// symlink: a mailbox's inboxes/ and team folder (n = 2), a config's or a
// task's folder (n = 1). A folder that is not there is no link (what is
// below it is not there either).
func noLinksAbove(path string, n int) error {
	d := filepath.Dir(path)
	for range n {
		fi, err := os.Lstat(d)
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return &LinkError{Path: d}
		}
		d = filepath.Dir(d)
	}
	return nil
}

// readCapped reads the file at path (what it is, for errors), which must be
// a regular file, not a symlink, of at most limit bytes: a larger one is a
// *TooLargeError, and is not read. A missing file is fs.ErrNotExist.
func readCapped(path, what string, limit int64) ([]byte, error) {
	// O_NONBLOCK: a FIFO put there would otherwise hold the open until
	// someone writes to it; it is refused as not a regular file instead.
	f, err := safefile.Open(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, safefile.ErrSymlink) {
		return nil, &LinkError{Path: path}
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readUpTo(f, path, what, limit)
}

// readCappedFollow is readCapped for a file the person places (a settings
// file, Claude Code's global config), which may be a link to where they keep
// it.
func readCappedFollow(path, what string, limit int64) ([]byte, error) {
	data, err := safefile.ReadFileFollow(path, limit)
	var tl *safefile.TooLargeError
	switch {
	case errors.As(err, &tl):
		return nil, &TooLargeError{What: what, Path: path, Size: tl.Size, Limit: limit}
	case errors.Is(err, safefile.ErrNotRegular):
		return nil, fmt.Errorf("%s %w", what, err)
	}
	return data, err
}

// readUpTo reads f (at path) whole unless it holds more than limit bytes
// (safefile.ReadUpTo, the one bounded read), said as Claude Code's what.
func readUpTo(f *os.File, path, what string, limit int64) ([]byte, error) {
	data, err := safefile.ReadUpTo(f, path, limit)
	var tl *safefile.TooLargeError
	if errors.As(err, &tl) {
		return nil, &TooLargeError{What: what, Path: path, Size: tl.Size, Limit: limit}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return data, nil
}
