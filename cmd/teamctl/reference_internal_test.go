package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/teamctl/teamctl/internal/iostreams"
)

// TestCommandReferenceIsCurrent: docs/commands, the command reference in the
// repository, is exactly what `teamctl man --markdown` makes from the
// commands' own help today: a command's text is written once, in its Long
// and Example, and a change there without the reference made again fails
// here. Make it again with: go run ./cmd/teamctl man --markdown docs/commands
func TestCommandReferenceIsCurrent(t *testing.T) {
	t.Setenv("TEAMCTL_TMUX", "") // the flags' defaults as a user without it sees them
	dir := t.TempDir()
	ios := iostreams.Test(nil, new(bytes.Buffer), new(bytes.Buffer))
	root := newRootCmd(ios)
	if err := manRun(context.Background(), &manOptions{IO: ios, Dir: &dir, Markdown: true, Root: root}); err != nil {
		t.Fatal(err)
	}
	const committed = "../../docs/commands"
	want := mdFiles(t, dir)
	got := mdFiles(t, committed)
	fix := "; make it again: go run ./cmd/teamctl man --markdown docs/commands"
	for name, text := range want {
		have, ok := got[name]
		switch {
		case !ok:
			t.Errorf("docs/commands/%s is missing%s", name, fix)
		case have != text:
			t.Errorf("docs/commands/%s differs from what the commands say%s", name, fix)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("docs/commands/%s documents no command%s (and remove it)", name, fix)
		}
	}
}

func mdFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(p)] = string(b)
	}
	return files
}
