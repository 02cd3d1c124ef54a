package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/teamctl/teamctl/internal/textsafe"
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
		if err := textsafe.CheckText(text); err != nil {
			s.refuseQueued(text, end, err)
			return
		}
		s.notifier.queueAt(ctx, text, "typed into the lead (teamctl send): ", end)
	})
	s.queueRead = off
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.log.Warn("lead queue", "err", err)
	}
}

// refuseQueued passes over a queued text that holds a control character: it
// would be keys, not text (shift-tab, ^C, ^U). `send` refuses such text, so
// something else wrote it (agents can write the team's state folder). It is
// reported and never typed, and, unless texts before it still wait, marked
// read for good.
func (s *daemon) refuseQueued(text string, end int64, why error) {
	s.event(state.Event{Kind: state.EventNotify, Member: s.leadName(), Detail: fmt.Sprintf(
		"not typed into the lead: a text in the lead queue holds the control character %v, and teamctl send refuses such text: %s", why, textsafe.Short(text, 200))})
	if !s.notifier.queueWaiting() {
		s.live.LeadQueueOffset = end
	}
}
