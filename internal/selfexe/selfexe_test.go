package selfexe

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTemporary(t *testing.T) {
	for p, want := range map[string]bool{
		"/tmp/go-build123456/b001/exe/teamctl": true,
		"/home/u/.cache/go-build/da/da62737cb8950e1fe127078cfde9ef7726c2f6db3f13fbc97a3e7991b485d64b-d/teamctl": true,
		"/custom/gocache/da/da62737cb8950e1fe127078cfde9ef7726c2f6db3f13fbc97a3e7991b485d64b-d/teamctl":         true,
		"/home/u/go/bin/teamctl":                                   false,
		"/usr/local/bin/teamctl":                                   false,
		"/tmp/go-build/teamctl":                                    true,
		"/tmp/teamctl-bin-123/teamctl":                             false, // internal/testenv's build
		"/home/u/src/go-builder/teamctl":                           false,
		"/home/u/cache/da/not-a-hash-d/teamctl":                    false,
		"/home/u/cache/da/" + strings.Repeat("a", 64) + "/teamctl": false,
	} {
		if got := Temporary(p); got != want {
			t.Errorf("Temporary(%s) = %v, want %v", p, got, want)
		}
	}
}

// fakeBinary writes an executable file with the given content.
func fakeBinary(t *testing.T, p, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAStableBinaryIsUsedWhereItIs(t *testing.T) {
	dir := t.TempDir()
	bindir := filepath.Join(dir, "state", BinDir)
	exe := fakeBinary(t, filepath.Join(dir, "Cellar", "1.2", "teamctl"), "v1.2")
	link := filepath.Join(dir, "bin", "teamctl")
	os.MkdirAll(filepath.Dir(link), 0o700)
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	// Started through the symlink: the symlink's path, which an upgrade keeps.
	if got, err := resolve(exe, link, exe, bindir); err != nil || got != link {
		t.Errorf("through a symlink: %q %v, want %s", got, err, link)
	}
	// Started by another path that is not this binary: its own path.
	other := fakeBinary(t, filepath.Join(dir, "other", "teamctl"), "another")
	if got, err := resolve(exe, other, exe, bindir); err != nil || got != exe {
		t.Errorf("argv[0] another binary: %q %v, want %s", got, err, exe)
	}
	if _, err := os.Stat(bindir); err == nil {
		t.Error("a copy was made of a binary that stays")
	}
}

func TestAGoRunBinaryIsCopiedOnceByContent(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	bindir := filepath.Join(dir, "state", "teamctl", BinDir)
	first := fakeBinary(t, filepath.Join(dir, "go-build1", "b001", "exe", "teamctl"), "build A")
	got, err := resolve(first, first, first, bindir)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(got) != bindir || !strings.HasPrefix(filepath.Base(got), "teamctl-") {
		t.Fatalf("copy at %s, want in %s", got, bindir)
	}
	if b, _ := os.ReadFile(got); string(b) != "build A" {
		t.Errorf("copy holds %q", b)
	}
	for p, want := range map[string]os.FileMode{bindir: 0o700, got: 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want mode %v", p, fi.Mode(), err, want)
		}
	}
	// The same content from another go run: the same copy.
	second := fakeBinary(t, filepath.Join(dir, "go-build2", "b001", "exe", "teamctl"), "build A")
	if again, err := resolve(second, second, second, bindir); err != nil || again != got {
		t.Errorf("same content: %q %v, want %s", again, err, got)
	}
	// Other content: another copy, and the first stays (in its first hour).
	third := fakeBinary(t, filepath.Join(dir, "go-build3", "b001", "exe", "teamctl"), "build B")
	other, err := resolve(third, third, third, bindir)
	if err != nil || other == got {
		t.Fatalf("other content: %q %v", other, err)
	}
	if _, err := os.Stat(got); err != nil {
		t.Errorf("a fresh copy was pruned: %v", err)
	}
	// A binary whose file is gone (deleted since it started) is copied from
	// the running image (self) too, though its path is no go-build one.
	gone := filepath.Join(dir, "bin", "teamctl")
	if p, err := resolve(gone, gone, third, bindir); err != nil || p != other {
		t.Errorf("deleted binary: %q %v, want %s", p, err, other)
	}
}

func TestACopyIsNeverAFollowedSymlink(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	bindir := filepath.Join(dir, "state", "teamctl", BinDir)
	exe := fakeBinary(t, filepath.Join(dir, "go-build1", "exe", "teamctl"), "build A")
	want, err := resolve(exe, exe, exe, bindir)
	if err != nil {
		t.Fatal(err)
	}
	// Someone plants a symlink where the copy goes, to a file of the same
	// content elsewhere: it is replaced, the target untouched.
	target := fakeBinary(t, filepath.Join(dir, "elsewhere"), "build A")
	os.Remove(want)
	if err := os.Symlink(target, want); err != nil {
		t.Fatal(err)
	}
	got, err := resolve(exe, exe, exe, bindir)
	if err != nil || got != want {
		t.Fatalf("%q %v", got, err)
	}
	if fi, err := os.Lstat(got); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the copy is not a regular file: %v %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "build A" {
		t.Errorf("the symlink's target changed: %q", b)
	}

	// A symlink in place of the folder is refused.
	bindir2 := filepath.Join(dir, "state2", BinDir)
	os.MkdirAll(filepath.Dir(bindir2), 0o700)
	os.Symlink(filepath.Join(dir, "elsewhere-dir"), bindir2)
	os.Mkdir(filepath.Join(dir, "elsewhere-dir"), 0o700)
	if p, err := resolve(exe, exe, exe, bindir2); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("bin folder a symlink: %q %v", p, err)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "elsewhere-dir")); len(ents) != 0 {
		t.Errorf("a copy went through the symlinked folder: %v", ents)
	}
}

// TestPruneKeepsWhatIsNeeded: old copies go unless a team's state names them or
// a process runs them; fresh ones and foreign files stay.
func TestPruneKeepsWhatIsNeeded(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	bindir := filepath.Join(dir, "state", "teamctl", BinDir)
	os.MkdirAll(bindir, 0o700)
	old := time.Now().Add(-2 * keepFor)
	mk := func(name string, mtime time.Time) string {
		p := fakeBinary(t, filepath.Join(bindir, name), name)
		os.Chtimes(p, mtime, mtime)
		return p
	}
	unused := mk("teamctl-0000000000000001", old)
	fresh := mk("teamctl-0000000000000002", time.Now())
	named := mk("teamctl-0000000000000003", old)
	current := mk("teamctl-0000000000000004", old)
	other := mk("notes.txt", old)
	teamDir := filepath.Join(dir, "state", "teamctl", "someteam")
	os.MkdirAll(teamDir, 0o700)
	os.WriteFile(filepath.Join(teamDir, "state.json"), []byte(`{"members":[{"argv":["x","--settings","{\"command\":\"'`+named+`' hook\"}"]}]}`), 0o600)

	// A process that runs a copy: a copy of sleep.
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	b, _ := os.ReadFile(sleep)
	inUse := filepath.Join(bindir, "teamctl-0000000000000005")
	os.WriteFile(inUse, b, 0o700)
	os.Chtimes(inUse, old, old)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, inUse, "60")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()

	prune(bindir, filepath.Base(current), time.Now())
	for p, stays := range map[string]bool{unused: false, fresh: true, named: true, current: true, other: true, inUse: true} {
		_, err := os.Stat(p)
		if stays != (err == nil) {
			t.Errorf("%s: stays %v, want %v", filepath.Base(p), err == nil, stays)
		}
	}
}
