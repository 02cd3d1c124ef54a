package claudecode

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// Task is one of Claude Code's task files (tasks/<team>/<id>.json), read
// leniently: the fields teamctl shows, and the whole object for --json.
type Task struct {
	ID      string          `json:"id"`
	Subject string          `json:"subject"`
	Status  string          `json:"status"`
	Owner   string          `json:"owner,omitempty"`
	Raw     json.RawMessage `json:"raw"`
}

// Skipped is a file ReadTasks left out for a reason a person should hear of
// (Err names the file): over MaxTaskBytes, a symlink, not a regular file, or
// past MaxTaskFiles (Path is then the folder).
type Skipped struct {
	Path string
	Err  error
}

// ReadTasks lists the tasks of Claude Code team claudeTeam (by id). A file
// being written, or not a task, is left out without a word; one it would not
// read is left out and in skipped. A tasks folder that is a symlink is an
// error (*LinkError).
func ReadTasks(configDir, claudeTeam string) (tasks []Task, skipped []Skipped, err error) {
	return readTasks(configDir, claudeTeam, MaxTaskFiles)
}

// readTasks is ReadTasks reading at most maxFiles files of the folder.
func readTasks(configDir, claudeTeam string, maxFiles int) (tasks []Task, skipped []Skipped, err error) {
	dir, err := TasksDir(configDir, claudeTeam)
	if err != nil {
		return nil, nil, err
	}
	names, more, err := taskFiles(dir, maxFiles)
	if err != nil {
		return nil, nil, err
	}
	if more {
		skipped = append(skipped, Skipped{Path: dir, Err: fmt.Errorf("tasks folder %s holds more than %d files: teamctl reads %d of them", dir, maxFiles, maxFiles)})
	}
	tasks = []Task{}
	for _, f := range names {
		b, err := readCapped(f, "task file", MaxTaskBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed meanwhile
		}
		if err != nil {
			skipped = append(skipped, Skipped{Path: f, Err: err})
			continue
		}
		if t, ok := parseTask(f, b); ok {
			tasks = append(tasks, t)
		}
	}
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].ID < tasks[j].ID })
	return tasks, skipped, nil
}

// taskFiles are the *.json files in dir, at most maxFiles of them (more
// says whether there were others), read a batch at a time so that a folder of
// a million names costs no more. A missing folder has none.
func taskFiles(dir string, maxFiles int) (names []string, more bool, err error) {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, false, &LinkError{Path: dir}
	}
	// Opened as a folder only, not through a link, without waiting: what was
	// a folder at the Lstat may since be a link or a FIFO (an agent's swap).
	d, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false, fmt.Errorf("tasks folder: %w", err)
	}
	defer d.Close()
	for {
		ents, err := d.ReadDir(256)
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".json") {
				continue
			}
			if len(names) == maxFiles {
				return names, true, nil
			}
			names = append(names, filepath.Join(dir, e.Name()))
		}
		if errors.Is(err, io.EOF) || len(ents) == 0 {
			return names, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("tasks folder %s: %w", dir, err)
		}
	}
}

// parseTask reads a task file's fields leniently; false when b is no JSON
// object (being written, or not a task).
func parseTask(path string, b []byte) (Task, bool) {
	var fields map[string]any
	if json.Unmarshal(b, &fields) != nil || fields == nil {
		return Task{}, false
	}
	str := func(keys ...string) string {
		for _, k := range keys {
			if v, ok := fields[k]; ok && v != nil {
				return fmt.Sprint(v)
			}
		}
		return ""
	}
	t := Task{ID: str("id"), Subject: str("subject", "title", "content", "description"), Status: str("status"), Owner: str("owner", "assignee"), Raw: b}
	if t.ID == "" {
		t.ID = strings.TrimSuffix(filepath.Base(path), ".json")
	}
	return t, true
}
