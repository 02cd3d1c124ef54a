package supervisor

import (
	"context"
	"errors"
	"io/fs"

	"github.com/teamctl/teamctl/state"
)

// readLeadQueue takes what `send lead` queued since the last read and hands it
// to the notifier, which types it when the lead is idle. live.json's offset
// moves only as texts are typed, so what a supervisor read but did not type
// before it died (a reboot) is typed by the next.
func (s *daemon) readLeadQueue(ctx context.Context) {
	if s.queueRead < s.live.LeadQueueOffset {
		s.queueRead = s.live.LeadQueueOffset
	}
	off, err := state.ReadLeadQueue(s.team, s.queueRead, func(text string, end int64) {
		s.notifier.queueAt(ctx, text, "typed into the lead (teamctl send): ", end)
	})
	s.queueRead = off
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.log.Warn("lead queue", "err", err)
	}
}
