package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/atomicfile"
	"github.com/teamctl/teamctl/internal/safefile"
	"github.com/teamctl/teamctl/internal/textsafe"
)

// A member's last words are the last lines its pane showed when its program
// ended, kept in logs/<member>.last.json: a restart replaces the dead pane
// with a new one, and what the old one showed goes with it. One file a
// member, the latest run that ended; written whole (atomicfile), read without
// following a link.

// LastWords are what a member's pane showed when its program ended.
type LastWords struct {
	Pane     string    `json:"pane"`          // the pane they were read from
	PID      int       `json:"pid,omitempty"` // the pane's program that ended
	ExitCode *int      `json:"exit_code,omitempty"`
	Signal   int       `json:"signal,omitempty"`
	At       time.Time `json:"at"`    // when they were kept
	Lines    []string  `json:"lines"` // oldest first, no trailing blank lines
}

// MaxLastWords bounds the bytes of lines kept of one run: the end is kept.
const MaxLastWords = 64 << 10

// maxLastWordsFile bounds what is read back (JSON escapes a control byte in 6).
const maxLastWordsFile = 8 * MaxLastWords

// memberFileName is a member's name as it may name a file: a layout name or
// one Claude Code gave a teammate (claudecode.ValidMemberName), never "..",
// a slash or a leading dot.
var memberFileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

// lastWordsPath is logs/<member>.last.json in the team's folder.
func lastWordsPath(team, member string) (dir, path string, err error) {
	path, err = memberPlace(team, member, "logs", member+".last.json")
	return filepath.Dir(path), path, err
}

// memberPlace is elem joined under team's folder, once member (which elem
// names) is checked to be a name that can name a file.
func memberPlace(team, member string, elem ...string) (string, error) {
	if !memberFileName.MatchString(member) {
		return "", fmt.Errorf("invalid member name %q for a file name", member)
	}
	d, err := Dir(team)
	if err != nil {
		return "", err
	}
	return filepath.Join(append([]string{d}, elem...)...), nil
}

// WriteLastWords keeps w as member's last words, replacing those of an
// earlier run. Trailing blank lines go, and only the last MaxLastWords bytes
// of lines are kept.
func WriteLastWords(team, member string, w LastWords) error {
	dir, path, err := lastWordsPath(team, member)
	if err != nil {
		return err
	}
	if _, err := EnsureDir(team); err != nil {
		return err
	}
	if err := safefile.EnsureDir(dir, "logs folder", 0o700); err != nil {
		return err
	}
	w.Lines = boundLines(trimBlankEnd(w.Lines), MaxLastWords)
	b, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return fmt.Errorf("last words of %s: %w", member, err)
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o600)
}

// ReadLastWords returns member's last words, nil when none were kept.
func ReadLastWords(team, member string) (*LastWords, error) {
	_, path, err := lastWordsPath(team, member)
	if err != nil {
		return nil, err
	}
	f, err := safefile.Open(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("last words of %s: %w", member, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxLastWordsFile+1))
	if err != nil {
		return nil, fmt.Errorf("last words of %s: %w", member, err)
	}
	if len(b) > maxLastWordsFile {
		return nil, fmt.Errorf("last words of %s: %s is over %d bytes", member, path, maxLastWordsFile)
	}
	var w LastWords
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("last words of %s: %s: %w", member, path, err)
	}
	return &w, nil
}

// ClearLastWords forgets every member's last words, for a team started
// afresh: they are of a life it no longer has.
func ClearLastWords(team string) error {
	d, err := Dir(team)
	if err != nil {
		return err
	}
	// RemoveAll removes a link planted at logs, never what it points to.
	return os.RemoveAll(filepath.Join(d, "logs"))
}

// Of reports whether the words are of pane's program pid (0: any): a member
// restarted since runs in another pane.
func (w *LastWords) Of(pane string, pid int) bool {
	return w != nil && w.Pane == pane && (pid == 0 || w.PID == 0 || w.PID == pid)
}

// Tail is the last n lines (all of them when n <= 0).
func (w *LastWords) Tail(n int) []string {
	if n <= 0 || n >= len(w.Lines) {
		return w.Lines
	}
	return w.Lines[len(w.Lines)-n:]
}

// How says how the run ended: "exit 3", "signal 9", or "".
func (w *LastWords) How() string {
	switch {
	case w.ExitCode != nil:
		return fmt.Sprintf("exit %d", *w.ExitCode)
	case w.Signal != 0:
		return fmt.Sprintf("signal %d", w.Signal)
	}
	return ""
}

// trimBlankEnd drops the blank lines at the end (a pane's screen below its
// last output).
func trimBlankEnd(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// boundLines keeps the last lines that fit in max bytes (a newline each); a
// last line longer than that keeps its end, from a whole character (an emoji
// sequence is not split).
func boundLines(lines []string, max int) []string {
	size := 0
	for i := len(lines) - 1; i >= 0; i-- {
		size += len(lines[i]) + 1
		if size <= max {
			continue
		}
		if i == len(lines)-1 {
			return []string{textsafe.Tail(lines[i], max-1)}
		}
		return lines[i+1:]
	}
	return lines
}
