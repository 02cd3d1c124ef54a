package claudecode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/teamctl/teamctl/internal/atomicfile"
)

// A team's files as another host has them (teamctl's relay): a teammate on
// another host reads and writes its team's files there, so its config and
// tasks are copied across whole, and messages moved between its host's
// mailboxes and the lead's (AppendNew, RemoveMessages).

// ReadTeamConfigBytes is the team config at path as it is on disk (see
// ReadTeamConfig).
func ReadTeamConfigBytes(path string) ([]byte, error) { return readTeamConfigFile(path) }

// WriteTeamConfigCopy writes data, a team config as the lead's host has it,
// as team's config in configDir: atomically, through no link, under Claude
// Code's lock on it (config.json.lock, as its mailboxes'), refused when it
// is not a JSON object.
func WriteTeamConfigCopy(ctx context.Context, configDir, team string, data []byte) error {
	path, err := TeamConfigPath(configDir, team)
	if err != nil {
		return err
	}
	var c map[string]json.RawMessage
	if err := json.Unmarshal(data, &c); err != nil || c == nil {
		return fmt.Errorf("team config copy for %s: not a JSON object", path)
	}
	if int64(len(data)) > MaxTeamConfigBytes {
		return &TooLargeError{Path: path, What: "team config", Limit: MaxTeamConfigBytes}
	}
	if err := noLinksAbove(path, 1); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	unlock, err := mailboxes{}.lock(ctx, path)
	if err != nil {
		return err
	}
	defer unlock()
	return writeCopy(path, 1, data)
}

// writeCopy writes data at path, its folder made, through no link in the
// n folders above it.
func writeCopy(path string, n int, data []byte) error {
	if err := noLinksAbove(path, n); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if err := noLinksAbove(path, n); err != nil {
		return err
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return &LinkError{Path: path}
	}
	return atomicfile.WriteFile(path, data, 0o600)
}

// validTaskFile reports whether name is a task file's name: ID.json, no
// folder, no dot file.
func validTaskFile(name string) bool {
	return strings.HasSuffix(name, ".json") && len(name) > len(".json") && !strings.HasPrefix(name, ".") &&
		!strings.ContainsAny(name, "/\\\x00") && len(name) <= 200
}

// TaskFileBytes are the task files of team in configDir, by file name, as
// they are on disk (a file that cannot be read is left out).
func TaskFileBytes(configDir, team string) (map[string][]byte, error) {
	dir, err := TasksDir(configDir, team)
	if err != nil {
		return nil, err
	}
	names, _, err := taskFiles(dir, maxTaskFiles)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(names))
	for _, p := range names {
		if b, err := readCapped(p, "task file", MaxTaskBytes); err == nil {
			out[filepath.Base(p)] = b
		}
	}
	return out, nil
}

// maxTaskFiles is the most task files a copy carries.
const maxTaskFiles = 10000

// WriteTaskCopy writes data as task file name of team in configDir.
func WriteTaskCopy(configDir, team, name string, data []byte) error {
	if !validTaskFile(name) {
		return fmt.Errorf("task file name %q refused", name)
	}
	if int64(len(data)) > MaxTaskBytes {
		return errors.New("task file " + name + " too large")
	}
	dir, err := TasksDir(configDir, team)
	if err != nil {
		return err
	}
	return writeCopy(filepath.Join(dir, name), 1, data)
}

// InboxNames are the names of the members whose mailboxes team has in
// configDir (inboxes/NAME.json).
func InboxNames(configDir, team string) ([]string, error) {
	dir, err := TeamDir(configDir, team)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(filepath.Join(dir, "inboxes"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if ok && e.Type().IsRegular() && ValidMemberName(name) {
			names = append(names, name)
		}
	}
	return names, nil
}

// RemoveTeamCopy removes team's folders (teams/TEAM, tasks/TEAM) from
// configDir, on a host where a relay kept a copy of them: never through a
// link.
func RemoveTeamCopy(configDir, team string) error {
	teamDir, err := TeamDir(configDir, team)
	if err != nil {
		return err
	}
	tasks, err := TasksDir(configDir, team)
	if err != nil {
		return err
	}
	for _, d := range []string{teamDir, tasks} {
		fi, err := os.Lstat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return err
		case !fi.IsDir():
			return &LinkError{Path: d}
		}
		if err := noLinksAbove(filepath.Join(d, "x"), 2); err != nil {
			return err
		}
		if err := os.RemoveAll(d); err != nil {
			return err
		}
	}
	return nil
}
