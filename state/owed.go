package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
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
	path, err = memberPlace(team, member, "owed", member)
	return filepath.Dir(path), path, err
}

// An Owed answer: whom it is owed to (a member's name: the lead's) and the
// text that asked for it, as it was typed (on one line).
type Owed struct {
	To   string `json:"to"`
	Text string `json:"text"`
}

// OweAnswer records that member's answer to text is owed to to. A later
// OweAnswer replaces it.
func OweAnswer(team, member, to, text string) error {
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
	b, err := json.Marshal(Owed{To: to, Text: text})
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o600)
}

// maxOwedFile bounds an owed answer's record (its text is a message's: at
// most MaxLeadText).
const maxOwedFile = MaxLeadText + 4096

// readOwed reads an owed answer's record.
func readOwed(path string) (Owed, error) {
	b, err := safefile.ReadFile(path, maxOwedFile)
	if err != nil {
		return Owed{}, err
	}
	var o Owed
	if err := json.Unmarshal(b, &o); err != nil {
		return Owed{}, err
	}
	if !memberFileName.MatchString(o.To) {
		return Owed{}, fmt.Errorf("%q is not a member's name", o.To)
	}
	return o, nil
}

// TakeOwedAnswer claims member's owed answer when answers says the turn that
// ended answered it (answers is given the text that asked): ok when it did.
// The record is moved aside (one rename) before it is taken, so two turn
// ends never both deliver one answer; one that was not the answer leaves it.
func TakeOwedAnswer(team, member string, answers func(text string) bool) (o Owed, ok bool, err error) {
	dir, path, err := owedPath(team, member)
	if err != nil {
		return Owed{}, false, err
	}
	if o, err = readOwed(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Owed{}, false, nil
		}
		return Owed{}, false, fmt.Errorf("owed answer of %s: %w", member, err)
	}
	if !answers(o.Text) {
		return Owed{}, false, nil
	}
	taken := filepath.Join(dir, "."+member+".taken-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(time.Now().UnixNano(), 10))
	if err := os.Rename(path, taken); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Owed{}, false, nil // another turn end took it
		}
		return Owed{}, false, fmt.Errorf("owed answer of %s: %w", member, err)
	}
	defer os.Remove(taken)
	if o, err = readOwed(taken); err != nil {
		return Owed{}, false, fmt.Errorf("owed answer of %s: %w", member, err)
	}
	if !answers(o.Text) {
		// Replaced since it was read (the lead asked again): put back,
		// unless a newer one is there already.
		os.Link(taken, path)
		return Owed{}, false, nil
	}
	return o, true, nil
}

// DropOwedAnswer forgets member's owed answer (the text was never sent).
func DropOwedAnswer(team, member string) {
	if _, path, err := owedPath(team, member); err == nil {
		os.Remove(path)
	}
}
