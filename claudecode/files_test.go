package claudecode

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sparse makes path a file of size bytes that takes no room on disk (a
// hole): reading it whole still costs size bytes of memory.
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

// TestLargeFilesAreNotRead: a config.json, a task file, Claude Code's global
// config and a settings file over their limits are not read: each is an
// error naming the file, its size and the limit; the other tasks are read.
func TestLargeFilesAreNotRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "teams", "session-12345678", "config.json")
	sparse(t, cfg, 300<<20)
	tooLarge := func(what string, err error, path string, limit int64) {
		t.Helper()
		want := fmt.Sprintf("%s is too large to read (", path)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), fmt.Sprintf("teamctl reads up to %.1f MiB", float64(limit)/(1<<20))) {
			t.Errorf("%s: %v, want %q and the limit", what, err, want)
		}
	}
	_, err := ReadTeamConfig(cfg)
	tooLarge("ReadTeamConfig", err, cfg, MaxTeamConfigBytes)
	if TeamConfigReady(cfg) {
		t.Error("a 300 MB config.json is ready")
	}

	tasks := filepath.Join(dir, "tasks", "session-12345678")
	os.MkdirAll(tasks, 0o700)
	os.WriteFile(filepath.Join(tasks, "1.json"), []byte(`{"id":"1","subject":"small","status":"pending"}`), 0o600)
	big := filepath.Join(tasks, "2.json")
	sparse(t, big, 400<<20)
	got, skipped, err := ReadTasks(dir, "session-12345678")
	if err != nil || len(got) != 1 || got[0].Subject != "small" {
		t.Errorf("ReadTasks: %+v %v, want the small task", got, err)
	}
	if len(skipped) != 1 || skipped[0].Path != big {
		t.Fatalf("skipped %+v, want %s", skipped, big)
	}
	tooLarge("the skipped task", skipped[0].Err, big, MaxTaskBytes)

	global := filepath.Join(dir, ".claude.json")
	sparse(t, global, MaxGlobalConfigBytes+1)
	_, err = Trusted(global, dir, "", "")
	tooLarge("Trusted", err, global, MaxGlobalConfigBytes)
	tooLarge("Trust", Trust(global, dir), global, MaxGlobalConfigBytes)
	if fi, _ := os.Stat(global); fi.Size() != MaxGlobalConfigBytes+1 {
		t.Error("Trust rewrote a config it did not read")
	}

	settings := filepath.Join(dir, "settings.json")
	sparse(t, settings, MaxSettingsBytes+1)
	_, _, err = SettingsSource("settings.json", dir)
	tooLarge("SettingsSource", err, settings, MaxSettingsBytes)
}

// TestTasksFolderIsReadToALimit: a tasks folder of more than its limit of
// files (MaxTaskFiles; here a smaller one) gives that many tasks and says
// the rest were left out.
func TestTasksFolderIsReadToALimit(t *testing.T) {
	t.Parallel()
	const maxFiles = 300
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks", "t")
	os.MkdirAll(tasks, 0o700)
	for i := range maxFiles + 5 {
		if err := os.WriteFile(filepath.Join(tasks, fmt.Sprintf("%d.json", i)), []byte(`{}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, skipped, err := readTasks(dir, "t", maxFiles)
	if err != nil || len(got) != maxFiles {
		t.Errorf("%d tasks (%v), want %d", len(got), err, maxFiles)
	}
	if len(skipped) != 1 || skipped[0].Path != tasks || !strings.Contains(skipped[0].Err.Error(), fmt.Sprintf("holds more than %d files", maxFiles)) {
		t.Errorf("skipped: %+v", skipped)
	}
}

// TestSymlinksInATeamAreNotFollowed: a team's folder, its inboxes/, its tasks
// folder or one of their files that is a symlink is refused, naming it, by
// every read and write — nothing is read from where it points, and nothing
// (a mailbox, a .corrupt copy, a config) is written there.
func TestSymlinksInATeamAreNotFollowed(t *testing.T) {
	t.Parallel()
	link := func(t *testing.T, target, at string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(at), 0o700)
		if err := os.Symlink(target, at); err != nil {
			t.Fatal(err)
		}
	}
	refused := func(t *testing.T, what string, err error, path string) {
		t.Helper()
		var le *LinkError
		if !errors.As(err, &le) || le.Path != path || !strings.Contains(err.Error(), path+" is a symlink") {
			t.Errorf("%s: %v, want %s refused as a symlink", what, err, path)
		}
	}
	// untouched says the folder elsewhere holds only what it held.
	untouched := func(t *testing.T, elsewhere string, want ...string) {
		t.Helper()
		ents, _ := os.ReadDir(elsewhere)
		var got []string
		for _, e := range ents {
			got = append(got, e.Name())
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s holds %v, want %v", elsewhere, got, want)
		}
	}
	ctx := func(t *testing.T) context.Context { return ctxFor(t, 10*time.Second) }

	t.Run("inboxes", func(t *testing.T) {
		dir, elsewhere := t.TempDir(), t.TempDir()
		os.WriteFile(filepath.Join(elsewhere, "team-lead.json"), []byte("not json"), 0o600)
		inboxes := filepath.Join(dir, "teams", "t", "inboxes")
		link(t, elsewhere, inboxes)
		lead, _ := InboxPath(dir, "t", LeadMailboxName)
		_, err := ReadMailbox(lead)
		refused(t, "ReadMailbox", err, inboxes)
		refused(t, "AppendMessage", AppendMessage(ctx(t), lead, Message{Text: "x"}), inboxes)
		mate, _ := InboxPath(dir, "t", "mate")
		refused(t, "DeliverPrompt", DeliverPrompt(ctx(t), dir, "t", "mate", "hi"), inboxes)
		refused(t, "AnswerRequest", AnswerRequest(ctx(t), dir, "t", "mate", PermissionRequest{RequestID: "r"}, ""), inboxes)
		_, err = ReadMailbox(mate)
		refused(t, "ReadMailbox of another", err, inboxes)
		untouched(t, elsewhere, "team-lead.json")
	})
	t.Run("team folder", func(t *testing.T) {
		dir, elsewhere := t.TempDir(), t.TempDir()
		os.WriteFile(filepath.Join(elsewhere, "config.json"), []byte(`{"name":"elsewhere"}`), 0o600)
		team := filepath.Join(dir, "teams", "t")
		link(t, elsewhere, team)
		cfg, _ := TeamConfigPath(dir, "t")
		_, err := ReadTeamConfig(cfg)
		refused(t, "ReadTeamConfig", err, team)
		if TeamConfigReady(cfg) {
			t.Error("a config through a linked team folder is ready")
		}
		os.Remove(filepath.Join(elsewhere, "config.json"))
		_, err = EnsureTeamConfig(dir, "t", "s", "/", time.Now())
		refused(t, "EnsureTeamConfig", err, team)
		lead, _ := InboxPath(dir, "t", LeadMailboxName)
		refused(t, "AppendMessage", AppendMessage(ctx(t), lead, Message{Text: "x"}), team)
		untouched(t, elsewhere)
	})
	t.Run("files", func(t *testing.T) {
		dir, elsewhere := t.TempDir(), t.TempDir()
		target := filepath.Join(elsewhere, "secret.json")
		os.WriteFile(target, []byte(`[{"from":"x","text":"SECRET","timestamp":"t","read":false}]`), 0o600)
		mate, _ := InboxPath(dir, "t", "mate")
		link(t, target, mate)
		_, err := ReadMailbox(mate)
		refused(t, "ReadMailbox", err, mate)
		refused(t, "AppendMessage", AppendMessage(ctx(t), mate, Message{Text: "x"}), mate)
		if fi, err := os.Lstat(mate); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Error("the link was replaced")
		}
		cfg, _ := TeamConfigPath(dir, "t")
		link(t, target, cfg)
		_, err = ReadTeamConfig(cfg)
		refused(t, "ReadTeamConfig", err, cfg)
		untouched(t, elsewhere, "secret.json")
	})
	t.Run("tasks", func(t *testing.T) {
		dir, elsewhere := t.TempDir(), t.TempDir()
		os.WriteFile(filepath.Join(elsewhere, "1.json"), []byte(`{"id":"1","subject":"ELSEWHERE"}`), 0o600)
		tasks := filepath.Join(dir, "tasks", "t")
		link(t, elsewhere, tasks)
		got, _, err := ReadTasks(dir, "t")
		refused(t, "ReadTasks", err, tasks)
		if len(got) != 0 {
			t.Errorf("tasks read through a link: %+v", got)
		}
		tasks2 := filepath.Join(dir, "tasks", "t2")
		link(t, filepath.Join(elsewhere, "1.json"), filepath.Join(tasks2, "1.json"))
		got, skipped, err := ReadTasks(dir, "t2")
		if err != nil || len(got) != 0 || len(skipped) != 1 {
			t.Fatalf("ReadTasks: %+v %+v %v", got, skipped, err)
		}
		refused(t, "a linked task", skipped[0].Err, filepath.Join(tasks2, "1.json"))
	})
	t.Run("fifo", func(t *testing.T) {
		// A FIFO is no mailbox: refused at once, not waited on.
		dir := t.TempDir()
		mate, _ := InboxPath(dir, "t", "mate")
		os.MkdirAll(filepath.Dir(mate), 0o700)
		if err := syscall.Mkfifo(mate, 0o600); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { _, err := ReadMailbox(mate); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("ReadMailbox of a FIFO: %v", err)
			}
		case <-time.After(time.Minute): // a hang, not a slow read
			if f, err := os.OpenFile(mate, os.O_RDWR, 0); err == nil {
				f.Close() // lets the stuck open go
			}
			t.Fatal("ReadMailbox waits on a FIFO")
		}
	})
}
