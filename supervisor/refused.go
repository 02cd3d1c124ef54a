package supervisor

import (
	"fmt"
	"slices"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor/internal/filewatch"
)

// refusals reports, once each, the files of kind (the inbox, config or tasks)
// that teamctl would not read now (path → why), as file-refused events; a
// file read again since is reported again when next refused.
func (s *daemon) refusals(kind filewatch.Kind, now map[string]error) {
	if s.seen.refused == nil {
		s.seen.refused = map[filewatch.Kind]map[string]bool{}
	}
	was := s.seen.refused[kind]
	paths := make([]string, 0, len(now))
	for p := range now {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		if !was[p] {
			s.event(state.Event{Kind: state.EventFileRefused, Detail: fmt.Sprintf("not read: %v", now[p])})
		}
	}
	if len(now) == 0 {
		delete(s.seen.refused, kind)
		return
	}
	s.seen.refused[kind] = map[string]bool{}
	for p := range now {
		s.seen.refused[kind][p] = true
	}
}
