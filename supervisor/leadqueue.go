package supervisor

import (
	"context"
	"errors"
	"io/fs"

	"github.com/teamctl/teamctl/state"
)

// readLeadQueue takes what `send lead` queued since the last read and hands it
// to the notifier, which types it when the lead is idle.
func (s *daemon) readLeadQueue(ctx context.Context) {
	off, err := state.ReadLeadQueue(s.team, s.live.LeadQueueOffset, func(text string) {
		s.notifier.queue(ctx, text, "typed into the lead (teamctl send): ")
	})
	s.live.LeadQueueOffset = off
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.log.Warn("lead queue", "err", err)
	}
}
