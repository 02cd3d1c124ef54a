package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestOpenRefusesASymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("precious"), 0o600)
	p := filepath.Join(dir, "events.jsonl")
	if err := os.Symlink(victim, p); err != nil {
		t.Fatal(err)
	}
	for flag, verb := range map[int]string{os.O_CREATE | os.O_WRONLY | os.O_APPEND: "write", os.O_CREATE | os.O_RDWR: "write", os.O_CREATE | os.O_EXCL | os.O_WRONLY: "write", os.O_RDONLY: "read"} {
		f, err := Open(p, flag, 0o600)
		if err == nil {
			f.Close()
			t.Fatalf("flag %#x: opened through the link", flag)
		}
		if !errors.Is(err, ErrSymlink) || err.Error() != "refusing to "+verb+" through a symlink: "+p {
			t.Errorf("flag %#x: err = %v", flag, err)
		}
	}
	// A dangling link is not created through either.
	dangling := filepath.Join(dir, "supervisor.log")
	os.Symlink(filepath.Join(dir, "made"), dangling)
	if _, err := Open(dangling, os.O_CREATE|os.O_WRONLY, 0o600); !errors.Is(err, ErrSymlink) {
		t.Errorf("dangling link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); err == nil {
		t.Error("a file was created at the dangling link's target")
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("victim changed: %q", b)
	}
}

func TestOpenCreatesAndAppends(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	for range 2 {
		f, err := Open(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("x")
		f.Close()
	}
	if b, _ := os.ReadFile(p); string(b) != "xx" {
		t.Errorf("%q", b)
	}
}

func TestOpenRefusesAFIFOAndAFolder(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir, os.O_RDONLY, 0); !errors.Is(err, ErrNotRegular) {
		t.Errorf("folder: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	if _, err := Open(fifo, os.O_RDWR, 0); !errors.Is(err, ErrNotRegular) {
		t.Errorf("fifo: %v", err)
	}
}

func TestCheckDir(t *testing.T) {
	base := t.TempDir()
	good := filepath.Join(base, "good")
	if err := EnsureDir(good, "state folder", 0o700); err != nil {
		t.Fatalf("a new folder: %v", err)
	}
	if err := EnsureDir(good, "state folder", 0o700); err != nil {
		t.Fatalf("an existing folder: %v", err)
	}
	link := filepath.Join(base, "link")
	os.Symlink(good, link)
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o700)
	os.Chmod(open, 0o777)
	file := filepath.Join(base, "file")
	os.WriteFile(file, nil, 0o600)
	cases := map[string]string{link: "is a symlink", open: "writable by others (mode 0777): chmod 700 " + open, file: "is not a folder"}
	if os.Getuid() == 0 {
		other := filepath.Join(base, "other")
		os.Mkdir(other, 0o700)
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cases[other] = "owned by uid 65534, not by you"
	}
	for p, want := range cases {
		err := EnsureDir(p, "state folder", 0o700)
		if !errors.Is(err, ErrUnsafeDir) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "state folder "+p) {
			t.Errorf("%s: err = %v, want %q", p, err, want)
		}
	}
	// EnsureDir never makes a folder through a dangling link.
	dangling := filepath.Join(base, "dangling")
	os.Symlink(filepath.Join(base, "made"), dangling)
	if err := EnsureDir(dangling, "state folder", 0o700); !errors.Is(err, ErrUnsafeDir) {
		t.Errorf("dangling link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(base, "made")); err == nil {
		t.Error("a folder was made at the link's target")
	}
}

// inTime runs fn and fails the test if it has not returned within a minute
// (a hang: a FIFO opened to read waits for a writer forever).
func inTime(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s: still blocked after a minute", what)
	}
}

// TestReadFileRefusesWhatIsNotARegularFile: a FIFO (opened to read only,
// which blocks without O_NONBLOCK), a link to /dev/zero, a folder and a file
// over the limit are each refused at once, with an error saying so.
func TestReadFileRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, 101), 0o600)
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("ok"), 0o600)
	inTime(t, "Open(fifo, O_RDONLY)", func() {
		if _, err := Open(fifo, os.O_RDONLY, 0); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Open fifo: %v", err)
		}
	})
	for _, read := range []struct {
		name string
		fn   func(string, int64) ([]byte, error)
	}{{"ReadFile", ReadFile}, {"ReadFileFollow", ReadFileFollow}} {
		inTime(t, read.name, func() {
			if _, err := read.fn(fifo, 100); !errors.Is(err, ErrNotRegular) {
				t.Errorf("%s fifo: %v", read.name, err)
			}
			if _, err := read.fn(dir, 100); !errors.Is(err, ErrNotRegular) {
				t.Errorf("%s folder: %v", read.name, err)
			}
			_, err := read.fn(zero, 100)
			if read.name == "ReadFile" && !errors.Is(err, ErrSymlink) || read.name == "ReadFileFollow" && !errors.Is(err, ErrNotRegular) {
				t.Errorf("%s link to /dev/zero: %v", read.name, err)
			}
			var tl *TooLargeError
			if _, err := read.fn(big, 100); !errors.As(err, &tl) || !errors.Is(err, ErrTooLarge) || tl.Size != 101 || !strings.Contains(err.Error(), "101 bytes, over the 100 bytes") {
				t.Errorf("%s big: %v", read.name, err)
			}
			if b, err := read.fn(small, 100); err != nil || string(b) != "ok" {
				t.Errorf("%s small: %q, %v", read.name, b, err)
			}
			if _, err := read.fn(filepath.Join(dir, "none"), 100); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s missing: %v", read.name, err)
			}
		})
	}
}
