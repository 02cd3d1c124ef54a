package supervisor

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// connect attaches a control client to the team's session (found through its
// panes) and subscribes to pane exits; tmux then reports every pane's current
// value, so exits that happened while no client was attached are seen.
func (s *daemon) connect(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	panes, err := s.srv.ListPanes(cctx)
	if err != nil {
		return fmt.Errorf("find the team's panes: %w", err)
	}
	ctl, err := s.srv.Control(cctx, tmux.TeamSessionTarget(panes, s.st.PanesLeadFirst(), s.st.Session))
	if err != nil {
		return fmt.Errorf("follow the team's panes: %w", err)
	}
	if _, err := ctl.Command(cctx, "refresh-client", "-B", "dead:%*:"+deadFormat); err != nil {
		ctl.Close()
		return fmt.Errorf("subscribe to pane exits: %w", err)
	}
	if lines, err := ctl.Command(cctx, "display-message", "-p", "#{pid}"); err == nil && len(lines) == 1 {
		s.serverPID, _ = strconv.Atoi(lines[0]) // the parent of every pane's program
	}
	s.ctl.Store(&ctl)
	return nil
}

// control is the current control client (it changes when one is lost).
func (s *daemon) control() controlClient {
	if c := s.ctl.Load(); c != nil {
		return *c
	}
	return nil
}

// Reconnection backoff: the first attempt is immediate, later ones wait
// from reconnectMin doubling up to reconnectMax.
var (
	reconnectMin = 50 * time.Millisecond
	reconnectMax = 5 * time.Second
)

// reconnect replaces a control client that ended while the team's server
// still runs — a person's `tmux attach -d` or `detach-client -a` detaches it
// too. It reports false when the server is gone (the team is down) or ctx
// ended: only then does the supervisor stop.
func (s *daemon) reconnect(ctx context.Context, why string) bool {
	if old := s.control(); old != nil {
		old.Close()
	}
	delay := time.Duration(0)
	for attempt := 1; ; attempt++ {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(delay):
		}
		lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := s.srv.ListPanes(lctx)
		cancel()
		if isNoServer(err) && !s.srv.Listening() {
			s.log.Info("the team's tmux server is gone", "err", err)
			return false // the server went: the team is down
		}
		if err == nil {
			if err = s.connect(ctx); err == nil {
				s.log.Warn("control client lost; reconnected", "why", why, "attempts", attempt)
				s.event(state.Event{Kind: state.EventSupervisor, Detail: fmt.Sprintf("lost its tmux control client (%s); reconnected", why)})
				return true
			}
		}
		s.log.Warn("reconnect the control client", "attempt", attempt, "err", err)
		delay = min(max(2*delay, reconnectMin), reconnectMax)
	}
}

func lostWhy(c controlClient) string {
	if err := c.Err(); err != nil {
		return err.Error()
	}
	return "ended"
}

// resync looks at every live pane again after the control client was away:
// output that came meanwhile was not seen, so no quiet timer runs for it; a
// stall that began meanwhile is found (and reported once: judge knows the
// stalls already reported), exits come with the new subscription's values.
func (s *daemon) resync(ctx context.Context) {
	if err := s.sync(ctx, nil); err != nil {
		s.log.Warn("list panes", "err", err)
	}
	for _, w := range s.panes {
		w.capturing = false // a capture sent to the old client got an error or nothing
		s.forgetSwitch(w)   // the new client has every pane's output on
		if w.live.State != state.StateExited && w.live.State != state.StateFailed {
			s.requestCapture(w)
		}
	}
}

func isNoServer(err error) bool { return errors.Is(err, tmux.ErrNoServer) }
