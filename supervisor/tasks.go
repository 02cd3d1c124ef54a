package supervisor

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/state"
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

// Tasks lists the team's tasks (those of the lead's implicit team), by id.
func Tasks(team string) ([]Task, error) {
	st, err := state.Load(team)
	if err != nil {
		return nil, err
	}
	return readTasks(st.ClaudeConfig, st.ClaudeTeam)
}

func readTasks(configDir, claudeTeam string) ([]Task, error) {
	dir, err := claudecode.TasksDir(configDir, claudeTeam)
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

// checkTasks reports new tasks and status changes as "task" events.
func (s *sup) checkTasks() {
	tasks, err := readTasks(s.st.ClaudeConfig, s.st.ClaudeTeam)
	if err != nil {
		return
	}
	now := map[string]string{}
	for _, t := range tasks {
		now[t.ID] = t.Status
		if s.mail.tasks == nil {
			continue // the first look only learns what is there
		}
		if old, seen := s.mail.tasks[t.ID]; !seen || old != t.Status {
			s.event(Event{Kind: EventTask, Member: t.Owner, Detail: fmt.Sprintf("task %s %s: %s", t.ID, t.Status, short(t.Subject, 120))})
		}
	}
	s.mail.tasks = now
}
