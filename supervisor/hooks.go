package supervisor

import (
	"fmt"

	"github.com/teamctl/teamctl/state"
)

// fromHook uses a Claude Code hook as a second signal: Stop and TeammateIdle
// mean the member finished its turn (idle), PermissionRequest and Notification
// mean it may be asking, so its screen is looked at now rather than after the
// quiet period; StopFailure with "rate_limit" means a usage limit (limits.go);
// BeforeAgent (a Gemini member's turn start, under Gemini's name) means an
// idle member works. A hook speaks only for the pane it ran in (`teamctl hook`
// records its TMUX_PANE): one naming a member whose pane is another is
// reported, once per member and pane, and changes nothing.
func (s *daemon) fromHook(e state.Event) {
	w := s.watchOf(e.Member)
	if w == nil {
		return
	}
	if e.Pane != w.id {
		s.hookFromElsewhere(e, w)
		return
	}
	if w.live.State == state.StateExited || w.live.State == state.StateFailed {
		return
	}
	switch e.Hook {
	case "Stop", "TeammateIdle":
		s.turnEnded(w.member)
		s.limitTurnEnded(w)
		if w.typedTurn {
			break // the turn before the one typed text started: late
		}
		if w.live.State != state.StateIdle && w.live.State != state.StateWaitingApproval && w.live.State != state.StateStalled && w.live.State != state.StateLimited {
			w.live = &state.LiveMember{Pane: w.id, State: state.StateIdle, Since: s.clock.Now().UTC()}
			w.rechecked = false
			s.live.Members[w.member] = w.live
			s.event(state.Event{Kind: state.EventIdle, Member: w.member, Pane: w.id, Detail: "hook " + e.Hook})
		}
	case "BeforeAgent":
		// Gemini CLI's turn start (teamctl hook --from gemini): an idle
		// member works again now, not after its screen's quiet period.
		if w.live.State == state.StateIdle {
			w.live = &state.LiveMember{Pane: w.id, State: state.StateRunning, Since: s.clock.Now().UTC()}
			w.rechecked = false
			s.live.Members[w.member] = w.live
			s.event(state.Event{Kind: state.EventWorking, Member: w.member, Pane: w.id, Detail: "hook " + e.Hook})
		}
	case "PermissionRequest", "Notification":
		s.requestCapture(w)
	case "StopFailure":
		s.limitHook(w, e)
	}
}

// hookFromElsewhere reports a hook that named a member from a pane not its
// own: another member's (an agent running `teamctl hook` with another's
// TEAMCTL_MEMBER), none, or the member's pane before a relaunch.
func (s *daemon) hookFromElsewhere(e state.Event, w *paneWatch) {
	key := e.Member + " " + e.Pane
	if s.hooksRefused[key] {
		return
	}
	if s.hooksRefused == nil || len(s.hooksRefused) >= 1000 {
		s.hooksRefused = map[string]bool{}
	}
	s.hooksRefused[key] = true
	from := "pane " + e.Pane
	if e.Pane == "" {
		from = "no pane"
	}
	s.event(state.Event{Kind: state.EventSupervisor, Member: e.Member, Pane: w.id, Hook: e.Hook, Detail: fmt.Sprintf(
		"ignored a %s hook for %s from %s: %s runs in pane %s, and a hook speaks only for the pane it runs in", e.Hook, e.Member, from, e.Member, w.id)})
}
