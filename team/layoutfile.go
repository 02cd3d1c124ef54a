package team

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

	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
)

// The layout a team was brought up from is a program run waiting to happen:
// `up --all` starts its claude.command and its members' commands. state.json
// names it (layout_path), and anyone running as the user can rewrite that
// file or, often more easily, the layout itself (it tends to sit in the
// repository the agents work in). So a layout is taken again without the
// person naming it only when it is the file the person named at up: the same
// bytes (layout_digest), owned by the user and writable by no one else, as
// up found it (layout_file). `teamctl up FILE` is the person naming it, and
// is never refused for this.

// ErrLayoutNotTrusted means a team's layout file is not, or no longer, the
// one it was brought up from: changed since, or open to others.
var ErrLayoutNotTrusted = errors.New("not taken again without you naming it")

// stampOf is the owner and mode of a layout file as up records them (nil
// when the file cannot be looked at: nothing to compare with later).
func stampOf(path string) *state.FileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	return stamp(fi)
}

func stamp(fi fs.FileInfo) *state.FileStamp {
	sys, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	return &state.FileStamp{UID: int(sys.Uid), GID: int(sys.Gid), Mode: fmt.Sprintf("%04o", fi.Mode().Perm())}
}

// ResumeLayout is the layout team was brought up from, read for `up --all`:
// its file at state.json's layout_path, parsed from the very bytes checked
// (checkLayout), as team's. An error wrapping ErrLayoutNotTrusted says what
// is wrong with the file, for a person to look at it and name it.
func ResumeLayout(team string) (*layouts.Layout, error) {
	st, err := state.Load(team)
	if err != nil {
		return nil, err
	}
	data, err := checkLayout(st)
	if err != nil {
		return nil, err
	}
	l, err := layouts.ParseBytes(st.LayoutPath, data)
	if err != nil {
		return nil, err
	}
	if l.Team != team {
		return nil, fmt.Errorf("%s is now the layout of team %q, not %q", st.LayoutPath, l.Team, team)
	}
	return l, nil
}

// LayoutProblem says why team st's layout file would not be taken again
// without the person naming it (checkLayout), "" when it would.
func LayoutProblem(st *state.Team) string {
	if _, err := checkLayout(st); err != nil {
		return err.Error()
	}
	return ""
}

// checkLayout reads st's layout file and returns its bytes when it is the
// file up recorded: a regular file (a FIFO would block the reader) of at
// most layouts.MaxSize, its digest st.LayoutDigest, owned by the user and
// by the owner up found, writable by no one else (its group's write bit only
// for the user's own group) and by no more than when up read it.
func checkLayout(st *state.Team) ([]byte, error) {
	path := st.LayoutPath
	if path == "" {
		return nil, fmt.Errorf("state.json names no layout file: %w", ErrLayoutNotTrusted)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("layout %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("layout %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("layout %s is not a regular file: %w", path, ErrLayoutNotTrusted)
	}
	if err := checkStamp(path, stamp(fi), st.LayoutFile); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, layouts.MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("layout %s: %w", path, err)
	}
	sum := sha256.Sum256(data)
	if st.LayoutDigest == "" || hex.EncodeToString(sum[:]) != st.LayoutDigest {
		return nil, fmt.Errorf("layout %s changed since the team was brought up from it: %w", path, ErrLayoutNotTrusted)
	}
	return data, nil
}

// checkStamp compares a layout file's owner and mode (now) with the user and
// with what up recorded (then; nil when an older teamctl recorded nothing).
func checkStamp(path string, now, then *state.FileStamp) error {
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
