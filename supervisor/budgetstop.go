package supervisor

import (
	"context"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/state"
)

// A member stopped for its budget (budget.action: stop) ends the way `teamctl
// down` ends its members, one member only: a Claude Code teammate is sent
// Claude Code's own shutdown_request and given a few seconds to end by itself;
// then its pane's process group gets SIGTERM, a grace period and SIGKILL. Its
// pane stays (dead) and the member is held, so nothing restarts it until
// `teamctl resume-member`. The daemon does it itself, off its loop (its one
// seam for ending processes, processes.EndGroup): it and the
// lifecycle verbs (package team, where down is) never import each other.

// Stop's waits: for a teammate asked to shut down, and between SIGTERM and
// SIGKILL (down's defaults).
var (
	stopAsk   = 5 * time.Second
	stopGrace = 10 * time.Second
)

// stopForBudget ends member name's run (w: its pane's watch, nil when it has
// none); why says what it spent.
func (s *daemon) stopForBudget(ctx context.Context, name string, w *paneWatch, why string) {
	if w == nil || w.pid <= 0 || w.live.State.Ended() || w.host != "" { // a remote pid is its host's, never signalled here
		return
	}
	wait := time.Duration(0)
	if m, ok := s.st.Member(name); ok && m.Role == state.RoleTeammate {
		if inbox, err := claudecode.InboxPath(s.claudeDir, s.st.ClaudeTeam, name); err == nil {
			mctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			err = claudecode.AppendMessage(mctx, inbox, claudecode.ShutdownRequestMessage(claudecode.NewSessionID(), "teamctl: "+why+" (budget.action: stop)", s.clock.Now()))
			cancel()
			if err == nil {
				wait = stopAsk
			} else {
				s.log.Warn("shutdown request for the budget", "member", name, "err", err)
			}
		}
	}
	s.procs.EndGroup(ctx, w.pid, wait, stopGrace, nil)
}
