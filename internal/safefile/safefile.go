// Package safefile opens files for writing in teamctl's own folders without
// following a symlink at the final name, and checks that a folder teamctl keeps
// its files in is a real folder of the user's, private to them. A link planted
// where teamctl writes (events.jsonl → ~/.bashrc) would otherwise have teamctl
// append to, truncate or lock whatever it points at.
package safefile

import (
	"errors"
	"fmt"
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
// Folders above path are the caller's to check (CheckDir).
func Open(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, perm)
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
