package supervisor

import (
	"errors"
	"fmt"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
)

// checkTasks reports new tasks and status changes as "task" events, and task
// files it would not read (too large, a link) once each as file-refused.
func (s *daemon) checkTasks() {
	tasks, skipped, err := claudecode.ReadTasks(s.claudeDir, s.st.ClaudeTeam)
	refused := map[string]error{}
	var link *claudecode.LinkError
	if errors.As(err, &link) {
		refused[link.Path] = err
	}
	for _, sk := range skipped {
		refused[sk.Path] = sk.Err
	}
	s.refusals("tasks", refused)
	if err != nil {
		return
	}
	now := map[string]string{}
	for _, t := range tasks {
		now[t.ID] = t.Status
		if s.files.tasks == nil {
			continue // the first look only learns what is there
		}
		if old, seen := s.files.tasks[t.ID]; !seen || old != t.Status {
			s.event(state.Event{Kind: state.EventTask, Member: t.Owner, Detail: fmt.Sprintf("task %s %s: %s", t.ID, t.Status, textsafe.Short(t.Subject, 120))})
		}
	}
	s.files.tasks = now
}
