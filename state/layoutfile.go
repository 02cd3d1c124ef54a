package state

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// MaxLayoutSize is the most a layout file may be (layouts.MaxSize, which
// state cannot import: layouts is the file's parser, state only its record).
const MaxLayoutSize = 1 << 20

// ErrLayoutNotTrusted means a team's layout file is not, or no longer, the
// one it was brought up from: changed since, or open to others.
var ErrLayoutNotTrusted = errors.New("not taken again without you naming it")

// StampOf is the owner and mode of a layout file as up records them (nil
// when the file cannot be looked at: nothing to compare with later).
func StampOf(path string) *FileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	return stamp(fi)
}

func stamp(fi fs.FileInfo) *FileStamp {
	sys, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	return &FileStamp{UID: int(sys.Uid), GID: int(sys.Gid), Mode: fmt.Sprintf("%04o", fi.Mode().Perm())}
}

// LayoutBytes reads st's layout file and returns its bytes when it is the
// file up recorded: a regular file (a FIFO would block the reader) of at
// most MaxLayoutSize, its digest st.LayoutDigest, owned by the user and
// by the owner up found, writable by no one else (its group's write bit only
// for the user's own group) and by no more than when up read it.
func (st *Team) LayoutBytes() ([]byte, error) {
	path := st.LayoutPath
	if path == "" {
		return nil, fmt.Errorf("state.json names no layout file: %w", ErrLayoutNotTrusted)
	}
	data, fi, err := readLayout(path)
	if err != nil {
		return nil, err
	}
	if err := checkStamp(path, stamp(fi), st.LayoutFile); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	if st.LayoutDigest == "" || hex.EncodeToString(sum[:]) != st.LayoutDigest {
		return nil, fmt.Errorf("layout %s changed since the team was brought up from it: %w", path, ErrLayoutNotTrusted)
	}
	return data, nil
}

// ReadLayoutFile reads the layout file at path (state.json's layout_path)
// as it is now, changed or not: only a regular file (a FIFO put there would
// block the reader: opened without blocking, then looked at), at most
// MaxLayoutSize and one byte (so the parser can say it is too big). For what
// may run a program, LayoutBytes: the file as up read it.
func ReadLayoutFile(path string) ([]byte, error) {
	data, _, err := readLayout(path)
	return data, err
}

func readLayout(path string) ([]byte, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("layout %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("layout %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("layout %s is not a regular file: %w", path, ErrLayoutNotTrusted)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxLayoutSize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("layout %s: %w", path, err)
	}
	return data, fi, nil
}

// checkStamp compares a layout file's owner and mode (now) with the user and
// with what up recorded (then; nil when an older teamctl recorded nothing).
func checkStamp(path string, now, then *FileStamp) error {
	if now == nil {
		return fmt.Errorf("layout %s: its owner cannot be told: %w", path, ErrLayoutNotTrusted)
	}
	mode, _ := strconv.ParseUint(now.Mode, 8, 32)
	switch {
	case now.UID != os.Getuid():
		return fmt.Errorf("layout %s is owned by uid %d, not by you: %w", path, now.UID, ErrLayoutNotTrusted)
	case mode&0o002 != 0:
		return fmt.Errorf("layout %s is writable by everyone (mode %s): %w", path, now.Mode, ErrLayoutNotTrusted)
	case mode&0o020 != 0 && now.GID != os.Getgid():
		return fmt.Errorf("layout %s is writable by group %d (mode %s): %w", path, now.GID, now.Mode, ErrLayoutNotTrusted)
	case then == nil:
		return nil
	case now.UID != then.UID || now.GID != then.GID:
		return fmt.Errorf("layout %s changed owner since the team was brought up from it (uid %d gid %d, then %d %d): %w",
			path, now.UID, now.GID, then.UID, then.GID, ErrLayoutNotTrusted)
	}
	before, _ := strconv.ParseUint(then.Mode, 8, 32)
	if mode&0o222&^before != 0 {
		return fmt.Errorf("layout %s is writable by more than when the team was brought up from it (mode %s, then %s): %w",
			path, now.Mode, then.Mode, ErrLayoutNotTrusted)
	}
	return nil
}
