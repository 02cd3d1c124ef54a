// Package agenthome writes the folder of its own that teamctl gives a
// member running another vendor's agent CLI (Codex's CODEX_HOME, Gemini's
// GEMINI_CLI_HOME), from the user's own, which it only reads.
package agenthome

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/teamctl/teamctl/internal/atomicfile"
	"github.com/teamctl/teamctl/internal/safefile"
)

// maxFile bounds a user's file read (a config, a login).
const maxFile = 1 << 20

// Folder makes dir (0700), and refuses one that is a symlink or not ours to
// write.
func Folder(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	switch {
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s is not a folder (a symlink?): not written", dir)
	}
	return os.Chmod(dir, 0o700)
}

// ReadUser reads the user's file at path (a config of theirs, which they may
// link to): nothing when there is none; a regular file of at most 1 MiB,
// opened without blocking (a FIFO never hangs it).
func ReadUser(path string) ([]byte, error) {
	b, err := safefile.ReadFileFollow(path, maxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// Write writes data at path atomically, 0600.
func Write(path string, data []byte) error {
	return atomicfile.WriteFile(path, data, 0o600)
}

// CopyIfThere copies the user's file from to to (0600), when there is one.
func CopyIfThere(from, to string) error {
	b, err := ReadUser(from)
	if err != nil || b == nil {
		return err
	}
	return Write(to, b)
}
