package supervisor

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor/internal/filewatch"
)

// teamLook is what checkTeam remembers between looks.
type teamLook struct {
	pid   int // the lead process last looked for
	tries int // looks for the team pid claimed
	// candidate is another team the lead was seen to claim, since since.
	candidate string
	since     time.Time
	reclaims  int    // leads relaunched in a row to take their own team over
	refused   string // the last team the lead claimed that the daemon would not follow (logged once)
}

// Looking for the team the lead claimed: this often, at most this many times
// after each reason to look (the lead claims its team within a second or two
// of starting). A team of another name is followed only once the lead has
// held it this long: Claude Code claims one under a passing name at start-up
// and moves to its session's within a moment (seen for 0.1-0.3 s).
const (
	teamLookEvery = 250 * time.Millisecond
	teamLooks     = 120
	teamSettle    = 5 * time.Second
)

// checkTeam makes sure the daemon follows the Claude Code team the lead
// actually claimed. teamctl never makes the lead's folder before the lead, but
// should Claude Code claim another one anyway (it does when it finds its
// folder taken), the team the lead's process claimed is found by its
// leadProcess, recorded in state and followed, with a team-moved event. own
// is the config.json of the team followed now, as read.
func (s *daemon) checkTeam(ctx context.Context, own configRead) {
	lead := s.watchOf(s.leadName())
	if lead == nil || lead.pid <= 0 || lead.live.State.Ended() {
		return
	}
	t := &s.teamLook
	if lead.pid != t.pid {
		t.pid, t.tries = lead.pid, 0 // a new lead process: look afresh
	}
	if cfg, err := own.cfg, own.err; err == nil && cfg.LeadProcess != nil && !cfg.IsPlaceholder() {
		if cfg.LeadProcess.PID == lead.pid {
			return // claimed by the lead: the usual case
		}
		if slices.Contains(s.procs.Tree(lead.pid), cfg.LeadProcess.PID) {
			return // by the lead under a wrapper
		}
	}
	// Only a claim by the lead's own process (its pid and start time) can
	// move the team: a config.json anyone can write, naming a process under
	// the lead or none, is no claim.
	name, cfg, ok := s.procs.ClaimedTeam(s.files.Paths().ConfigDir, lead.pid)
	if ok && name != s.st.ClaudeTeam {
		if why := s.notToFollow(name, cfg); why != "" {
			if t.refused != name {
				t.refused = name
				s.log.Warn("not following the lead to another Claude Code team", "team", name, "why", why)
			}
			ok = false
		}
	}
	switch {
	case ok && name == s.st.ClaudeTeam:
		t.candidate, t.reclaims = "", 0
		return
	case !ok:
		t.candidate = "" // not claimed yet (or not Claude Code)
	case name != t.candidate:
		t.candidate, t.since = name, s.clock.Now()
	case s.clock.Now().Sub(t.since) >= teamSettle:
		t.candidate = ""
		if !s.reclaimOwnTeam(ctx, lead, name, own) {
			s.moveTeam(ctx, name, cfg)
		}
		return
	}
	// Look again shortly, a bounded number of times.
	if t.tries < teamLooks {
		t.tries++
		s.clock.AfterFunc(teamLookEvery, func() { s.files.Mark(filewatch.Teams) })
	}
}

// notToFollow says why the daemon must not follow the lead to Claude Code
// team name, whose config is cfg, or "" when it may. A team is followed only
// under a name Claude Code gives (session-<8 hex>) with a session id of its
// shape, and never into a folder another teamctl team records (now or in an
// earlier life): clean removes the folders of the team followed, and those
// are another team's.
func (s *daemon) notToFollow(name string, cfg *claudecode.TeamConfig) string {
	if !claudecode.IsLeadTeamName(name) {
		return "not a name Claude Code gives a lead's team (session-<8 hex>)"
	}
	if !claudecode.ValidSessionID(cfg.LeadSessionID) {
		return fmt.Sprintf("its leadSessionId %q is not a session id", textsafe.Short(cfg.LeadSessionID, 80))
	}
	owners, err := state.ClaudeTeamOwners()
	if err != nil {
		return "cannot tell which teams record it: " + err.Error()
	}
	if other := state.OwnedByAnother(owners, name, s.team); other != "" {
		return "team " + other + " records it as its own"
	}
	return ""
}

// teamReclaims is how many times in a row the daemon relaunches a lead that
// kept a passing team while its own waited for it (reclaimOwnTeam) before it
// follows the lead there instead.
const teamReclaims = 2

// reclaimOwnTeam relaunches a Claude Code lead that kept the passing team it
// claims at start-up while its own team is there for it to take over (the
// config of its session, naming a lead process that is gone). Claude Code
// takes its team over under the config's lock, trying for about a second; a
// lead that cannot — a teammate writing the config, descheduled on a busy
// machine (seen in e2e at load 10, 2.1.332) — stays in the passing team, away
// from its teammates and their mailboxes. Ended (SIGTERM: Claude Code removes
// the passing team's folder as it goes) and restarted at once whatever its
// restart policy, it resumes its conversation and takes its own team over. It
// reports whether it did so; after teamReclaims tries in a row the daemon
// follows the lead instead.
func (s *daemon) reclaimOwnTeam(ctx context.Context, lead *paneWatch, claimed string, ownRead configRead) bool {
	if s.teamLook.reclaims >= teamReclaims || lead.reclaiming {
		return false
	}
	m, ok := s.st.Member(lead.member)
	if !ok || m.Role != state.RoleLead || m.SessionID == "" || lead.pid <= 0 {
		return false
	}
	if s.st.ClaudeTeam != claudecode.LeadTeamName(m.SessionID) {
		return false // followed elsewhere before: a resumed lead goes to its session's team, not there
	}
	own, err := ownRead.cfg, ownRead.err
	if err != nil || own.LeadSessionID != s.st.ClaudeLeadSession() || !own.LeadGone() {
		return false
	}
	s.teamLook.reclaims++
	lead.reclaiming = true
	s.event(state.Event{Kind: state.EventRestart, Member: lead.member, Pane: lead.id, Detail: fmt.Sprintf(
		"the lead (pid %d) could not take its Claude Code team %s over and kept %s: relaunching it to take its own", lead.pid, s.st.ClaudeTeam, claimed)})
	// The pane's process group is the lead's (tmux makes each pane's program a
	// session leader); its pid is tmux's word, the team's own server's. A
	// lead that does not end on SIGTERM is killed after down's grace; one
	// already gone is restarted all the same (its exit is seen).
	s.procs.EndGroup(ctx, lead.pid, 0, stopGrace, nil)
	return true
}

// moveTeam follows the lead to the Claude Code team it claimed: recorded in
// state (so every command finds it), watched instead of the old one, read
// afresh, and reported.
func (s *daemon) moveTeam(ctx context.Context, name string, cfg *claudecode.TeamConfig) {
	old := s.st.ClaudeTeam
	paths, err := filewatch.PathsOf(s.claudeDir, name)
	if err != nil {
		s.log.Warn("follow the lead's team", "team", name, "err", err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := s.updateTeam(ctx, func(st *state.Team) {
		st.ClaudeTeam, st.ClaudeTeamSession = name, cfg.LeadSessionID
	}); err != nil {
		s.log.Error("state", "err", err)
		return
	}
	s.seen.members, s.seen.tasks = nil, nil
	s.files.Move(paths)
	s.event(state.Event{Kind: state.EventTeamMoved, Member: s.leadName(), Detail: fmt.Sprintf("the lead (pid %d) claimed Claude Code team %s, not %s; following it", s.teamLook.pid, name, old)})
	s.syncLater() // panes waiting for a name find it in the new config
}
