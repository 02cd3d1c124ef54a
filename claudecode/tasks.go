package claudecode

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
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

// ReadTasks lists the tasks of Claude Code team claudeTeam (by id); a file
// being written, or not a task, is left out.
func ReadTasks(configDir, claudeTeam string) ([]Task, error) {
	dir, err := TasksDir(configDir, claudeTeam)
	if err != nil {
		return nil, err
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	out := []Task{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var fields map[string]any
		if json.Unmarshal(b, &fields) != nil {
			continue // being written, or not a task
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
			t.ID = strings.TrimSuffix(filepath.Base(f), ".json")
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
