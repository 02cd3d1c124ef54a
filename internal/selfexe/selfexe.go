// Package selfexe finds the path by which teamctl names itself to what outlives
// the command: the team's supervisor, and Claude Code's hooks in every member's
// --settings. That path must stay. `go run` builds into a go-build temp folder it
// removes on exit (or, since Go 1.24, into the build cache, which is trimmed), so
// such a binary is copied into teamctl's state folder,
// $XDG_STATE_HOME/teamctl/.bin/teamctl-<sha256 prefix>, and the copy is used.
// Any other binary is used where it is, by the path it was started as (a
// symlink such as /usr/local/bin/teamctl → …/1.2/bin/teamctl keeps working after
// an upgrade that moves its target).
package selfexe

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/teamctl/teamctl/internal/atomicfile"
	"github.com/teamctl/teamctl/state"
)

// BinDir is the folder of copies under the state root. Its name is no valid
// team name, so no command takes it for a team's folder.
const BinDir = ".bin"

// copyPrefix starts every copy's name.
const copyPrefix = "teamctl-"

// keepFor is how long an unused copy stays after it was last made or used:
// another teamctl may be between choosing it and starting a process from it.
const keepFor = time.Hour

var (
	once   sync.Once
	path   string
	errSet error
)

// Path returns the path of this teamctl binary that stays (see the package
// comment), working it out once per process.
func Path() (string, error) {
	once.Do(func() {
		exe, err := os.Executable() // on Linux, /proc/self/exe resolved, " (deleted)" cut off
		if err != nil {
			errSet = fmt.Errorf("find teamctl's own binary: %w", err)
			return
		}
		self := "/proc/self/exe" // the running binary, even once its file is gone
		if _, err := os.Stat(self); err != nil {
			self = exe
		}
		root, err := state.Root()
		if err != nil {
			errSet = err
			return
		}
		path, errSet = resolve(exe, invoked(), self, filepath.Join(root, BinDir))
	})
	return path, errSet
}

// invoked is the path teamctl was started by (argv[0], through PATH for a bare
// name), absolute; "" when there is none.
func invoked() string {
	a := os.Args[0]
	if !strings.ContainsRune(a, '/') {
		p, err := exec.LookPath(a)
		if err != nil {
			return ""
		}
		a = p
	}
	abs, err := filepath.Abs(a)
	if err != nil {
		return ""
	}
	return abs
}

// goBuild names the go command's temp folders (go-build123456) and its
// default build cache (~/.cache/go-build).
var goBuild = regexp.MustCompile(`^go-build[0-9]*$`)

// cachedExe is the folder Go 1.24+ keeps a `go run` executable in, inside the
// build cache: GOCACHE/xx/<sha256>-d/NAME.
var cachedExe = regexp.MustCompile(`^[0-9a-f]{64}-d$`)

// Temporary reports whether p is where the go command builds a binary that it
// removes (go-build temp folders) or may trim (its build cache).
func Temporary(p string) bool {
	for _, el := range strings.Split(filepath.Clean(p), string(filepath.Separator)) {
		if goBuild.MatchString(el) {
			return true
		}
	}
	return cachedExe.MatchString(filepath.Base(filepath.Dir(p)))
}

// resolve picks the stable path: invoked when it is this binary and not
// temporary, else exe when it is this binary (self) and not temporary, else a
// copy of self in bindir.
func resolve(exe, invoked, self, bindir string) (string, error) {
	me, err := os.Stat(self)
	if err != nil {
		return "", fmt.Errorf("find teamctl's own binary: %w", err)
	}
	for _, p := range []string{invoked, exe} {
		if p == "" || Temporary(p) {
			continue
		}
		if r, err := filepath.EvalSymlinks(p); err != nil || Temporary(r) {
			continue // a link to a go-build file is as temporary as the file
		}
		// A file at p that is not this binary (deleted, or replaced since it
		// started) cannot stand for it.
		if fi, err := os.Stat(p); err == nil && os.SameFile(fi, me) {
			return filepath.Clean(p), nil
		}
	}
	return copySelf(self, bindir)
}

// copySelf copies the running binary into bindir under a name from its
// content's hash, reusing a copy that holds the same content, and returns the
// copy's path. Making a new copy prunes old ones (see prune).
func copySelf(self, bindir string) (string, error) {
	if err := ensureDir(bindir); err != nil {
		return "", fmt.Errorf("keep a copy of teamctl: %w", err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		return "", fmt.Errorf("keep a copy of teamctl: read %s: %w", self, err)
	}
	sum := sha256.Sum256(data)
	name := copyPrefix + hex.EncodeToString(sum[:8])
	dst := filepath.Join(bindir, name)
	if reuse(dst, sum) {
		return dst, nil
	}
	// atomicfile renames over dst: a symlink or a torn copy there is replaced,
	// never followed.
	if err := atomicfile.WriteFile(dst, data, 0o700); err != nil {
		return "", fmt.Errorf("keep a copy of teamctl: %w", err)
	}
	prune(bindir, name, time.Now())
	return dst, nil
}

// ensureDir makes bindir (0700) and checks it is a real folder of this user's,
// not a symlink to somewhere else.
func ensureDir(bindir string) error {
	if err := os.MkdirAll(filepath.Dir(bindir), 0o700); err != nil {
		return err
	}
	if err := os.Mkdir(bindir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Lstat(bindir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder (%v); remove it", bindir, fi.Mode().Type())
	}
	if !ownedByMe(fi) {
		return fmt.Errorf("%s belongs to another user; remove it", bindir)
	}
	if fi.Mode().Perm() != 0o700 {
		return os.Chmod(bindir, 0o700)
	}
	return nil
}

// reuse reports whether dst is a copy to use: a regular executable file of this
// user's (opened without following a symlink) whose content hashes to sum. It
// marks a copy it reuses as just used, for prune.
func reuse(dst string, sum [sha256.Size]byte) bool {
	f, err := os.OpenFile(dst, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o100 == 0 || !ownedByMe(fi) {
		return false
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil || [sha256.Size]byte(h.Sum(nil)) != sum {
		return false
	}
	now := syscall.NsecToTimeval(time.Now().UnixNano())
	syscall.Futimes(int(f.Fd()), []syscall.Timeval{now, now})
	return true
}

func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// prune removes the copies in bindir that nothing needs any more: not keep,
// not made or used within keepFor, named by no team's state.json (a member's
// argv or hooks), and run by no process. Anything else in the folder — a file
// that is no regular file of this user's — is left alone.
func prune(bindir, keep string, now time.Time) {
	ents, err := os.ReadDir(bindir)
	if err != nil {
		return
	}
	states := state.RawStates()
	var running map[string]bool
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, copyPrefix) || name == keep {
			continue
		}
		p := filepath.Join(bindir, name)
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || !ownedByMe(fi) || now.Sub(fi.ModTime()) < keepFor {
			continue
		}
		if named(states, name) {
			continue
		}
		if running == nil {
			running = runningExes()
		}
		if running[p] {
			continue
		}
		os.Remove(p)
	}
}

func named(states [][]byte, name string) bool {
	for _, b := range states {
		if strings.Contains(string(b), name) {
			return true
		}
	}
	return false
}

// runningExes are the binaries the processes this user can see run, from one
// pass over /proc.
func runningExes() map[string]bool {
	out := map[string]bool{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		if p, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil {
			out[strings.TrimSuffix(p, " (deleted)")] = true
		}
	}
	return out
}
