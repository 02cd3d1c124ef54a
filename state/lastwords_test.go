package state

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestLastWordsKeptBoundedAndPrivate: a member's last words come back as
// written, without trailing blank lines, the latest run's replacing the one
// before; they are bounded (the end is kept), the file is 0600 in a 0700
// logs folder, and a name that is no file name is refused.
func TestLastWordsKeptBoundedAndPrivate(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	if w, err := ReadLastWords("t", "web"); w != nil || err != nil {
		t.Fatalf("none kept yet: %+v %v", w, err)
	}
	code := 3
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	if err := WriteLastWords("t", "web", LastWords{Pane: "%1", PID: 42, ExitCode: &code, At: at, Lines: []string{"first", "", "boom", "  ", ""}}); err != nil {
		t.Fatal(err)
	}
	w, err := ReadLastWords("t", "web")
	if err != nil || w == nil {
		t.Fatalf("read: %+v %v", w, err)
	}
	if !slices.Equal(w.Lines, []string{"first", "", "boom"}) || w.How() != "exit 3" || !w.At.Equal(at) {
		t.Errorf("read back %+v", w)
	}
	if !w.Of("%1", 42) || !w.Of("%1", 0) || w.Of("%1", 43) || w.Of("%2", 42) {
		t.Error("Of tells the wrong pane")
	}
	if got := w.Tail(1); !slices.Equal(got, []string{"boom"}) {
		t.Errorf("Tail(1) = %q", got)
	}

	// The next run's words replace them; a flood keeps its end.
	var flood []string
	for i := range 20000 {
		flood = append(flood, strings.Repeat("x", 20)+string(rune('a'+i%26)))
	}
	flood = append(flood, "THE END")
	if err := WriteLastWords("t", "web", LastWords{Pane: "%2", Signal: 9, Lines: flood}); err != nil {
		t.Fatal(err)
	}
	w, _ = ReadLastWords("t", "web")
	if size := len(strings.Join(w.Lines, "\n")); size > MaxLastWords || size < MaxLastWords/2 {
		t.Errorf("%d bytes kept of a flood, want at most %d", size, MaxLastWords)
	}
	if w.Lines[len(w.Lines)-1] != "THE END" || w.How() != "signal 9" || w.Pane != "%2" {
		t.Errorf("the flood's end: %q, %s", w.Lines[len(w.Lines)-1], w.How())
	}
	long := strings.Repeat("é", MaxLastWords) + "tail"
	WriteLastWords("t", "web", LastWords{Lines: []string{long}})
	if w, _ = ReadLastWords("t", "web"); len(w.Lines) != 1 || len(w.Lines[0]) >= MaxLastWords || !strings.HasSuffix(w.Lines[0], "étail") {
		t.Errorf("an over-long line: %d bytes, ends %q", len(w.Lines[0]), w.Lines[0][len(w.Lines[0])-8:])
	}

	dir, _ := Dir("t")
	fi, _ := os.Stat(filepath.Join(dir, "logs", "web.last.json"))
	di, _ := os.Stat(filepath.Join(dir, "logs"))
	if fi == nil || fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Errorf("modes: %v %v", fi, di)
	}
	for _, bad := range []string{"../x", ".hidden", "a/b", "", "-x"} {
		if err := WriteLastWords("t", bad, LastWords{}); err == nil {
			t.Errorf("member %q accepted", bad)
		}
	}

	if err := ClearLastWords("t"); err != nil {
		t.Fatal(err)
	}
	if w, err := ReadLastWords("t", "web"); w != nil || err != nil {
		t.Errorf("after ClearLastWords: %+v %v", w, err)
	}
}

// TestAnOverLongLineKeepsWholeCharacters: the end kept of a line too long
// to keep starts at a grapheme cluster, not inside an emoji ZWJ sequence
// (which would show another emoji, or a stray joiner).
func TestAnOverLongLineKeepsWholeCharacters(t *testing.T) {
	const family = "👨\u200d👩\u200d👧" // 18 bytes
	got := boundLines([]string{strings.Repeat(family, 10)}, 30)
	if len(got) != 1 || got[0] != family {
		t.Errorf("kept %q of a line of families, want one whole family", got)
	}
}

// TestLastWordsNeverThroughASymlink: a link planted at a member's file is
// neither read nor written through, and a link at logs/ is refused.
func TestLastWordsNeverThroughASymlink(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	WriteLastWords("t", "web", LastWords{Lines: []string{"x"}})
	dir, _ := Dir("t")
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte(`{"lines":["not yours"]}`), 0o600)
	file := filepath.Join(dir, "logs", "web.last.json")
	os.Remove(file)
	os.Symlink(victim, file)
	if w, err := ReadLastWords("t", "web"); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("read through a link: %+v %v", w, err)
	}
	if err := WriteLastWords("t", "web", LastWords{Lines: []string{"new"}}); err != nil {
		t.Fatal(err) // the link itself is replaced, never its target
	}
	if b, _ := os.ReadFile(victim); string(b) != `{"lines":["not yours"]}` {
		t.Errorf("written through the link: %s", b)
	}
	os.RemoveAll(filepath.Join(dir, "logs"))
	elsewhere := t.TempDir()
	os.Symlink(elsewhere, filepath.Join(dir, "logs"))
	if err := WriteLastWords("t", "web", LastWords{Lines: []string{"x"}}); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("logs a symlink: %v", err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("written through the link: %v", ents)
	}
}
