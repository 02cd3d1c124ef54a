// Package safefile opens files in teamctl's own folders without following a
// symlink at the final name, reads the files members can write or replace
// only as regular files and only up to a limit (ReadFile), and checks that a
// folder teamctl keeps its files in is a real folder of the user's, private
// to them. A link planted where teamctl writes (events.jsonl → ~/.bashrc)
// would otherwise have teamctl append to, truncate or lock whatever it
// points at; a link to /dev/zero where it reads would grow it until the OOM
// killer came, and a FIFO would hold it forever.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrSymlink is the error (wrapped) of Open when the final name is a symlink.
var ErrSymlink = errors.New("refusing to write through a symlink")

// errSymlinkRead is ErrSymlink for a file opened only to read.
var errSymlinkRead error = symlinkRead{}

type symlinkRead struct{}

func (symlinkRead) Error() string        { return "refusing to read through a symlink" }
func (symlinkRead) Is(target error) bool { return target == ErrSymlink }

// ErrNotRegular is the error (wrapped) of Open when the name is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Open is os.OpenFile with O_NOFOLLOW: a symlink at path is refused with
// "refusing to write through a symlink: PATH" (ErrSymlink; "read" when opened
// only to read) rather than followed, and anything but a regular file (a FIFO, a device) is refused too.
// It opens with O_NONBLOCK, so a FIFO put at path is refused rather than
// holding the open until someone writes to it (on a regular file O_NONBLOCK
// changes nothing). Folders above path are the caller's to check (CheckDir).
func Open(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, perm)
	if err != nil {
		// O_NOFOLLOW fails with ELOOP on a link (EEXIST with O_EXCL); a loop
		// in a folder above gives ELOOP too, so look before saying "symlink".
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EEXIST) {
			if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				if flag&(os.O_WRONLY|os.O_RDWR) == 0 {
					return nil, fmt.Errorf("%w: %s", errSymlinkRead, path)
				}
				return nil, fmt.Errorf("%w: %s", ErrSymlink, path)
			}
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w (%v)", path, ErrNotRegular, fi.Mode().Type())
	}
	return f, nil
}

// ErrTooLarge is the error (wrapped, in a *TooLargeError) of ReadFile for a
// file over its limit.
var ErrTooLarge = errors.New("too large to read")

// TooLargeError says a file is larger than its reader takes; it was not read.
type TooLargeError struct {
	Path  string
	Size  int64 // what it holds, as far as known (at least Limit+1)
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is %s, over the %s teamctl reads of it", e.Path, humanBytes(e.Size), humanBytes(e.Limit))
}

// Unwrap makes a TooLargeError ErrTooLarge.
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

func humanBytes(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// ReadFile is the one way teamctl reads a whole file that a member (running
// as the user) can write or replace: not through a symlink at path (Open's
// ErrSymlink), a regular file only (ErrNotRegular: a FIFO, /dev/zero), and at
// most limit bytes (a *TooLargeError, read no further). A missing file is
// fs.ErrNotExist.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadUpTo(f, path, limit)
}

// ReadFileFollow is ReadFile for a file the person places (a config file of
// theirs, which they may keep elsewhere and link to): a symlink at path is
// followed, but what it leads to must still be a regular file of at most
// limit bytes, and it is opened with O_NONBLOCK (a FIFO is refused, not
// waited on).
func ReadFileFollow(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%v)", path, ErrNotRegular, fi.Mode().Type())
	}
	return ReadUpTo(f, path, limit)
}

// ReadUpTo reads f (opened from path) whole unless it holds more than limit
// bytes: then a *TooLargeError. It never reads more than limit+1 bytes,
// however the file grows meanwhile.
func ReadUpTo(f *os.File, path string, limit int64) ([]byte, error) {
	if fi, err := f.Stat(); err == nil && fi.Size() > limit {
		return nil, &TooLargeError{Path: path, Size: fi.Size(), Limit: limit}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		size := int64(len(data))
		if fi, err := f.Stat(); err == nil && fi.Size() > size {
			size = fi.Size()
		}
		return nil, &TooLargeError{Path: path, Size: size, Limit: limit}
	}
	return data, nil
}

// ErrUnsafeDir is the error (wrapped) of CheckDir.
var ErrUnsafeDir = errors.New("unsafe folder")

// CheckDir makes sure path is a real folder (not a symlink to one), owned by
// the current user and writable by no one else, so nobody else can plant or
// swap a file in it. what names the folder in the error ("state folder").
func CheckDir(path, what string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return fmt.Errorf("%w: %s %s is a symlink (to %s); teamctl keeps its files only in a real folder: remove the link and teamctl makes the folder", ErrUnsafeDir, what, path, target)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s %s is not a folder (%v)", ErrUnsafeDir, what, path, fi.Mode().Type())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%w: %s %s is owned by uid %d, not by you (uid %d)", ErrUnsafeDir, what, path, st.Uid, os.Getuid())
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%w: %s %s is writable by others (mode %04o): chmod 700 %s", ErrUnsafeDir, what, path, perm, path)
	}
	return nil
}

// EnsureDir makes path (one folder, perm) unless it exists, and then checks it
// with CheckDir. Its parent must exist. os.Mkdir, unlike MkdirAll, never
// creates anything through a symlink at path.
func EnsureDir(path, what string, perm os.FileMode) error {
	if err := os.Mkdir(path, perm); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s %s: %w", what, path, err)
	}
	return CheckDir(path, what)
}
