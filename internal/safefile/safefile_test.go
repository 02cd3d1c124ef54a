package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
