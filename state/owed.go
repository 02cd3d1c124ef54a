package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/atomicfile"
	"github.com/teamctl/teamctl/internal/safefile"
)

// Owed answers: the lead gave a Codex or Gemini member text (`teamctl send`
// from the lead's own process tree), and that member's answer at the end of
// its next turn goes to the lead. A Claude Code lead cannot message such a
// member (docs/claude-code.md) nor reads its own inbox unless it spawned
// teammates, so the answer is typed into it through the lead queue. One
// file a member, owed/<member>, holding whom the answer is owed to.

// owedPath is owed/<member> in the team's folder.
func owedPath(team, member string) (dir, path string, err error) {
	if !memberFileName.MatchString(member) {
		return "", "", fmt.Errorf("invalid member name %q for a file name", member)
	}
	d, err := Dir(team)
	if err != nil {
		return "", "", err
	}
	dir = filepath.Join(d, "owed")
	return dir, filepath.Join(dir, member), nil
}

// OweAnswer records that member's next answer is owed to to (a member's
// name: the lead's). A later OweAnswer replaces it.
func OweAnswer(team, member, to string) error {
	if !memberFileName.MatchString(to) {
		return fmt.Errorf("invalid member name %q", to)
	}
	dir, path, err := owedPath(team, member)
	if err != nil {
		return err
	}
	if _, err := EnsureDir(team); err != nil {
		return err
	}
	if err := safefile.EnsureDir(dir, "owed answers folder", 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, []byte(to+"\n"), 0o600)
}

// TakeOwedAnswer claims member's owed answer: whom it is owed to, and ok
// when one was. The record is moved aside (one rename) before it is read, so
// two turn ends never both deliver one answer.
func TakeOwedAnswer(team, member string) (to string, ok bool, err error) {
	dir, path, err := owedPath(team, member)
	if err != nil {
		return "", false, err
	}
	taken := filepath.Join(dir, "."+member+".taken-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(time.Now().UnixNano(), 10))
	if err := os.Rename(path, taken); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, nil
		}
		return "", false, fmt.Errorf("owed answer of %s: %w", member, err)
	}
	defer os.Remove(taken)
	b, err := safefile.ReadFile(taken, 256)
	if err != nil {
		return "", false, fmt.Errorf("owed answer of %s: %w", member, err)
	}
	to = strings.TrimSpace(string(b))
	if !memberFileName.MatchString(to) {
		return "", false, fmt.Errorf("owed answer of %s: %q is not a member's name", member, to)
	}
	return to, true, nil
}
