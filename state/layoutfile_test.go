package state

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCheckStamp: a layout file is taken again only while it is the user's,
// writable by no one else (its group's write bit only for the user's own
// group), and no more open than when up read it.
func TestCheckStamp(t *testing.T) {
	me, mine := os.Getuid(), os.Getgid()
	at := func(uid, gid int, mode string) *FileStamp {
		return &FileStamp{UID: uid, GID: gid, Mode: mode}
	}
	for _, c := range []struct {
		name      string
		now, then *FileStamp
		want      string // "" for taken
	}{
		{"as at up", at(me, mine, "0644"), at(me, mine, "0644"), ""},
		{"recorded by an older teamctl", at(me, mine, "0600"), nil, ""},
		{"made private since", at(me, mine, "0600"), at(me, mine, "0644"), ""},
		{"the user's own group may write", at(me, mine, "0664"), at(me, mine, "0664"), ""},
		{"another owner", at(me+1, mine, "0644"), at(me, mine, "0644"), "owned by uid"},
		{"everyone may write", at(me, mine, "0666"), at(me, mine, "0666"), "writable by everyone"},
		{"another group may write", at(me, mine+1, "0664"), at(me, mine+1, "0664"), "writable by group"},
		{"another group since", at(me, mine+1, "0644"), at(me, mine, "0644"), "changed owner"},
		{"opened since", at(me, mine, "0664"), at(me, mine, "0644"), "writable by more"},
		{"not told", nil, nil, "cannot be told"},
	} {
		err := checkStamp("/x/team.yaml", c.now, c.then)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrLayoutNotTrusted)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestCheckLayout: the file's bytes are what up read (its digest), and it is
// a regular file: a FIFO at layout_path neither blocks nor passes.
func TestCheckLayout(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "team.yaml")
	data := []byte("team: t\n")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	st := &Team{Team: "t", LayoutPath: path, LayoutDigest: hex.EncodeToString(sum[:]), LayoutFile: StampOf(path)}
	if got, err := st.LayoutBytes(); err != nil || string(got) != string(data) {
		t.Errorf("the layout as at up: %q, %v", got, err)
	}
	if err := os.WriteFile(path, []byte("team: t\nclaude: {command: /tmp/evil}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := st.LayoutBytes(); !errors.Is(err, ErrLayoutNotTrusted) || !strings.Contains(err.Error(), "changed since") {
		t.Errorf("an edited layout: %v", err)
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	st.LayoutPath = fifo
	if _, err := st.LayoutBytes(); !errors.Is(err, ErrLayoutNotTrusted) {
		t.Errorf("a FIFO: %v", err)
	}
	st.LayoutPath = ""
	if _, err := st.LayoutBytes(); !errors.Is(err, ErrLayoutNotTrusted) {
		t.Errorf("no layout_path: %v", err)
	}
}
