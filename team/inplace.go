package team

import (
	"context"
	"fmt"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/relaunch"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// relaunchGrace is how long a member's running program gets to end on
// SIGTERM before a relaunch SIGKILLs it.
const relaunchGrace = 5 * time.Second

// clearForRelaunch makes room for a new run of member m in pane p: the
// program still running there is ended first (SIGTERM, grace, SIGKILL), since
// two runs of one member at once fight over what is theirs — a Claude Code
// session and its team's config (seen: a lead relaunched beside its old self
// claimed a team under another name, e2e under load), a port, a file. A
// Claude Code lead then waits for Claude Code's lock on its team's config
// (waitTeamLock). p is from the team's own server's list-panes: its pid is the
// pane's, whose process group is the member's. What the pane showed is kept
// as the member's last words (keepLastWords). It returns waitTeamLock's note.
func clearForRelaunch(ctx context.Context, w world, srv tmuxServer, st *state.Team, m *state.Member, p tmux.Pane, say func(string, ...any)) (note string, err error) {
	if !p.Dead && p.PID > 0 && onThisMachine(p.ID) { // on another host, the new pane's batch ends it (kill-pane: SIGHUP)
		w.procs.End(ctx, []proc.Target{proc.Group(p.PID)}, relaunchGrace)
	}
	keepLastWords(ctx, srv, st.Team, m, p, w.clock.Now())
	if m.Role != state.RoleLead || m.SessionID == "" {
		return "", nil
	}
	return waitTeamLock(ctx, relaunch.ClaudeConfigDir(st), m.SessionID, say)
}

// waitTeamLock holds a Claude Code lead's start back while Claude Code's lock
// on its team's config is fresh: the lead would find its team held and claim
// one under another name (claudecode.WaitTeamConfigUnlocked). A lead killed
// while writing the config leaves the lock fresh for 10 s (a reboot, an OOM
// kill, a relaunch's SIGKILL). A lock still fresh after
// claudecode.TeamLockPatience is returned as a note and the lead started
// anyway; teamctl follows the team it claims. say, if not nil, tells a person
// what is being waited for.
func waitTeamLock(ctx context.Context, configDir, leadSession string, say func(string, ...any)) (note string, err error) {
	cfg, err := claudecode.TeamConfigPath(configDir, claudecode.LeadTeamName(leadSession))
	if err != nil {
		return "", err
	}
	// The wall clock, not the world's: the lock's age is its file's.
	if claudecode.TeamLockFresh(cfg, time.Now()) == 0 {
		return "", nil
	}
	if say != nil {
		say("waiting up to %s for Claude Code's lock on %s, left by a process that was killed, to go stale…", claudecode.TeamLockStale, cfg)
	}
	wctx, cancel := context.WithTimeout(ctx, claudecode.TeamLockPatience)
	defer cancel()
	if _, err := claudecode.WaitTeamConfigUnlocked(wctx, cfg); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return fmt.Sprintf("%v; the lead may claim a team under another name (teamctl follows it)", err), nil
	}
	return "", nil
}

// keepLastWords keeps what pane p showed as m's last words before a relaunch
// replaces it (and what it showed goes with it), unless the supervisor kept
// them of that run already: with no supervisor running, or for a run a
// person ends now, nobody else would. Best effort: the relaunch goes on.
func keepLastWords(ctx context.Context, srv tmuxServer, team string, m *state.Member, p tmux.Pane, now time.Time) {
	if p.ID == "" {
		return // no pane to read
	}
	if lw, _ := state.ReadLastWords(team, m.Name); lw.Of(p.ID, p.PID) {
		return
	}
	e := relaunch.Ended{Pane: p.ID, PID: p.PID}
	if p.Dead {
		e.ExitCode, e.Signal = p.DeadStatus, p.DeadSignal
	}
	relaunch.KeepWords(ctx, srv, team, m.Name, e, now)
}
