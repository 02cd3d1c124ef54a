package state

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/tmux"
)

func TestSaveLoadListAndModes(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	if names, err := List(); err != nil || len(names) != 0 {
		t.Fatalf("empty: %v %v", names, err)
	}
	st := &Team{Team: "beta", Socket: "teamctl-beta", Members: []Member{{Name: "lead", Role: RoleLead, Pane: "%0", PID: 42}}}
	if err := Save(st); err != nil {
		t.Fatal(err)
	}
	dir, _ := Dir("beta")
	fi, _ := os.Stat(filepath.Join(dir, "state.json"))
	di, _ := os.Stat(dir)
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Errorf("modes: file %v dir %v", fi.Mode().Perm(), di.Mode().Perm())
	}
	got, err := Load("beta")
	if err != nil || got.Version != Version || got.Members[0].PID != 42 || !got.Running() {
		t.Fatalf("load: %+v %v", got, err)
	}
	if m, ok := got.Member("lead"); !ok || m.Pane != "%0" {
		t.Errorf("Member: %+v %v", m, ok)
	}
	Save(&Team{Team: "alpha"})
	if names, _ := List(); strings.Join(names, ",") != "alpha,beta" {
		t.Errorf("List: %v", names)
	}
	if _, err := Load("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing team: %v", err)
	}
}

func TestNamesAreValidatedBeforeBecomingPaths(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	for _, bad := range []string{"", "../x", "a/b", "Upper", "-lead", strings.Repeat("a", 41), "a b"} {
		if _, err := Dir(bad); err == nil {
			t.Errorf("Dir(%q) accepted", bad)
		}
	}
}

func TestNewerFormatIsRefused(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir, _ := EnsureDir("future")
	os.WriteFile(filepath.Join(dir, "state.json"), []byte(`{"version": 99, "team": "future"}`), 0o600)
	if _, err := Load("future"); err == nil || !strings.Contains(err.Error(), "format 99") {
		t.Errorf("got %v", err)
	}
}

func TestLockExcludesAndWaitsWithADeadline(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	unlock, err := Lock(context.Background(), "locked")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := Lock(ctx, "locked"); err == nil || !strings.Contains(err.Error(), "another teamctl") {
		t.Fatalf("second lock: %v", err)
	}
	unlock()
	unlock2, err := Lock(context.Background(), "locked")
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	unlock2()
}

// TestLockFollowsARemovedFolder: one waiting for the lock while its holder
// removes the team's state folder (clean does, lock file and all) takes the
// lock on the lock file there now, never on the removed one, so a third
// process cannot hold the team's lock at the same time as it.
func TestLockFollowsARemovedFolder(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	unlock, err := Lock(context.Background(), "gone")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan func(), 1)
	go func() {
		u, err := Lock(context.Background(), "gone")
		if err != nil {
			t.Error(err)
		}
		got <- u
	}()
	// The waiter has opened the old lock file once the holder's removal
	// cannot race its open: wait for that, not for a time.
	dir, _ := Dir("gone")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if n := openLockFiles(t, filepath.Join(dir, "lock")); n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second Lock never opened the lock file")
		}
		time.Sleep(time.Millisecond) // poll interval, not synchronisation
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	unlock()
	second := <-got
	defer second()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if third, err := Lock(ctx, "gone"); err == nil {
		third()
		t.Fatal("a third Lock was taken while the second held the team's lock")
	}
}

// openLockFiles counts this process's open descriptors of path.
func openLockFiles(t *testing.T, path string) int {
	t.Helper()
	fds, _ := os.ReadDir("/proc/self/fd")
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && target == path {
			n++
		}
	}
	return n
}

// The socket teamctl uses for a team is derived from its name, the same path
// tmux puts a -L socket at; a state.json naming another is refused, naming the
// file and the field.
func TestSocketIsDerivedAndCheckedOnLoad(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	for _, tmpdir := range []string{"", "/var/tmp/x/"} {
		t.Setenv("TMUX_TMPDIR", tmpdir)
		if got, want := SocketPath("gamma"), tmux.SocketPath(SocketName("gamma")); got != want {
			t.Errorf("TMUX_TMPDIR=%q: SocketPath %q, tmux says %q", tmpdir, got, want)
		}
	}
	if SocketName("gamma") != "teamctl-gamma" {
		t.Errorf("SocketName: %q", SocketName("gamma"))
	}
	// Save writes the derived fields whatever the struct said.
	if err := Save(&Team{Team: "gamma", Socket: "default"}); err != nil {
		t.Fatal(err)
	}
	st, err := Load("gamma")
	if err != nil || st.Socket != "teamctl-gamma" || st.SocketPath != SocketPath("gamma") || st.Session != "gamma" {
		t.Fatalf("load: %+v %v", st, err)
	}
	dir, _ := Dir("gamma")
	path := filepath.Join(dir, "state.json")
	good, _ := os.ReadFile(path)
	for field, bad := range map[string]string{
		"team":        `"team": "other"`,
		"socket":      `"socket": "default"`,
		"socket_path": `"socket_path": null`,
		"session":     `"session": "x"`,
	} {
		var m map[string]json.RawMessage
		json.Unmarshal(good, &m)
		k, v, _ := strings.Cut(bad, ": ")
		m[strings.Trim(k, `"`)] = json.RawMessage(v)
		b, _ := json.Marshal(m)
		os.WriteFile(path, b, 0o600)
		_, err := Load("gamma")
		if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `"`+field+`"`) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// The state root and a team's folder must be real folders of the user's:
// teamctl refuses to keep state behind a symlink or in a folder others can
// write, and never creates anything through such a link.
func TestStateFoldersMustBeRealAndPrivate(t *testing.T) {
	base := t.TempDir()
	t.Setenv("XDG_STATE_HOME", base)
	elsewhere := t.TempDir()
	root := filepath.Join(base, "teamctl")
	if err := os.Symlink(elsewhere, root); err != nil {
		t.Fatal(err)
	}
	if err := Save(&Team{Team: "t"}); err == nil || !strings.Contains(err.Error(), root+" is a symlink") {
		t.Errorf("root a symlink: %v", err)
	}
	if _, err := Lock(context.Background(), "t"); err == nil {
		t.Error("locked through a symlinked root")
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("written through the link: %v", ents)
	}
	os.Remove(root)

	dir, err := EnsureDir("t")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777)
	if err := Save(&Team{Team: "t"}); err == nil || !strings.Contains(err.Error(), "chmod 700 "+dir) {
		t.Errorf("team folder writable by others: %v", err)
	}
	os.Chmod(dir, 0o700)
	os.Remove(dir)
	if err := os.Symlink(elsewhere, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(context.Background(), "t"); err == nil || !strings.Contains(err.Error(), dir+" is a symlink") {
		t.Errorf("team folder a symlink: %v", err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("written through the link: %v", ents)
	}
}

// The team's lock file is never opened through a symlink (it would be created,
// or locked, wherever the link points).
func TestLockRefusesASymlink(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir, err := EnsureDir("t")
	if err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	os.Symlink(victim, filepath.Join(dir, "lock"))
	if _, err := Lock(context.Background(), "t"); err == nil || !strings.Contains(err.Error(), "refusing to write through a symlink: "+filepath.Join(dir, "lock")) {
		t.Errorf("err = %v", err)
	}
	if _, err := os.Stat(victim); err == nil {
		t.Error("the link's target was created")
	}
}
