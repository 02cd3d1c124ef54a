package supervisor

import (
	"errors"
	"fmt"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor/internal/filewatch"
)

// checkTasks reports, from the tasks folder as read, new tasks and status
// changes as "task" events, and task files it would not read (too large, a
// link) once each as file-refused.
func (s *daemon) checkTasks(r tasksRead) {
	refused := map[string]error{}
	var link *claudecode.LinkError
	if errors.As(r.err, &link) {
		refused[link.Path] = r.err
	}
	for _, sk := range r.skipped {
		refused[sk.Path] = sk.Err
	}
	s.refusals(filewatch.Tasks, refused)
	if r.err != nil {
		return
	}
	now := map[string]string{}
	for _, t := range r.tasks {
		now[t.ID] = t.Status
		if s.seen.tasks == nil {
			continue // the first look only learns what is there
		}
		if old, seen := s.seen.tasks[t.ID]; !seen || old != t.Status {
			s.event(state.Event{Kind: state.EventTask, Member: t.Owner, Detail: fmt.Sprintf("task %s %s: %s", t.ID, t.Status, textsafe.Short(t.Subject, 120))})
		}
	}
	s.seen.tasks = now
}
