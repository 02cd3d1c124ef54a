// Package atomicfile writes files so that a reader sees either the old content or
// the new, never a torn write: temp file in the same folder, fsync, rename.
//
// No symlink is followed: the temp file is created new (O_EXCL|O_NOFOLLOW), and
// rename(2) over a symlink at path replaces the link itself, never its target.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/teamctl/teamctl/internal/safefile"
)

// WriteFile replaces path with data. The temp file is created beside path so the
// rename stays on one filesystem; perm applies to the new file.
func WriteFile(path string, data []byte, perm os.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := createTemp(dir, "."+base+".tmp-")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(perm); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err = f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// createTemp makes a new file dir/prefix<random>, 0600 until chmod: O_EXCL
// never opens an existing file, and O_NOFOLLOW never a link's target.
func createTemp(dir, prefix string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := safefile.Open(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) || errors.Is(err, safefile.ErrSymlink) {
			continue // taken: another name
		}
		return f, err
	}
	return nil, fmt.Errorf("create a temp file in %s: no free name", dir)
}

// WriteNew writes path atomically unless something (a file, a link) is there
// already, which is never replaced; it reports whether it wrote. The temp file
// is hard-linked into place, so the check and the write are one step.
func WriteNew(path string, data []byte, perm os.FileMode) (written bool, err error) {
	if _, err := os.Lstat(path); err == nil {
		return false, nil
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp := filepath.Join(dir, "."+base+".new-"+strconv.FormatUint(rand.Uint64(), 36))
	if err := WriteFile(tmp, data, perm); err != nil {
		return false, err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	return true, nil
}
