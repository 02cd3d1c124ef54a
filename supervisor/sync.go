package supervisor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// syncDelay gathers a burst of layout notifications into one list-panes.
const syncDelay = 30 * time.Millisecond

// A pane not named yet is looked at again nameTriesFast times a syncDelay
// apart, then nameTriesSlow times nameRetrySlow apart (15 s in all) before it
// gets a name of its own.
const (
	nameTriesFast = 20
	nameTriesSlow = 60
	nameRetrySlow = 250 * time.Millisecond
)

func (s *daemon) syncLater() { s.syncIn(syncDelay) }

// syncIn has the panes listed again in d, unless a listing is due already.
func (s *daemon) syncIn(d time.Duration) {
	if s.syncSoon != nil {
		return
	}
	s.syncSoon = s.clock.AfterFunc(d, func() {
		select {
		case s.syncFire <- struct{}{}:
		default:
		}
	})
}

// sync lists the server's panes and brings the watchers in line: members from
// state get a watcher, panes nobody declared are adopted (teammates the lead
// spawned), panes that went are let go. Every newly watched pane is looked at
// once straight away, so a stall that began while no supervisor ran is found.
// prev is the live state a previous supervisor left (at start-up only).
func (s *daemon) sync(ctx context.Context, prev *state.Live) error {
	s.syncSoon = nil
	panes, err := s.srv.ListPanes(ctx)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	changed := false
	skip := s.copies(ctx, panes)
	for id := range s.ending {
		if !slices.ContainsFunc(panes, func(p tmux.Pane) bool { return p.ID == id }) {
			delete(s.ending, id) // gone
		}
	}
	for _, p := range panes {
		seen[p.ID] = true
		if s.panes[p.ID] != nil || skip[p.ID] || s.ending[p.ID] {
			continue
		}
		name, origin, refused := s.memberOf(p)
		if name == "" {
			// Claude Code records a teammate in its config after opening its
			// pane — within a moment, or seconds later on a busy machine (seen
			// with 2.1.332): ask again, soon at first, then every
			// nameRetrySlow, a bounded number of times (checkConfig asks too
			// when a member joins the config).
			if n := s.nameTries[p.ID]; n < nameTriesFast+nameTriesSlow {
				s.nameTries[p.ID]++
				if n < nameTriesFast {
					s.syncLater()
				} else {
					s.syncIn(nameRetrySlow)
				}
				continue
			}
			name = fallbackName(p)
		}
		if origin == state.OriginLead {
			if err := s.adopt(ctx, p, name, refused); err != nil {
				s.log.Warn("adopt", "pane", p.ID, "err", err)
				continue
			}
		}
		w := &paneWatch{id: p.ID, host: hostOfPane(p.ID), member: name, origin: origin, pid: p.PID, lastOutput: s.clock.Now(),
			live: &state.LiveMember{Pane: p.ID, State: state.StateRunning, Since: s.clock.Now().UTC()}}
		if prev != nil {
			if old := prev.Members[name]; old != nil && old.Pane == p.ID && (old.PID == 0 || old.PID == p.PID) {
				// Keep what was known of the same process: a stall reported before
				// is not reported again, a failed member stays failed. A pane
				// relaunched meanwhile (another pid) starts afresh.
				w.live = old
				if old.State == state.StateExited || old.State == state.StateFailed {
					w.exitPID = strconv.Itoa(p.PID)
				}
			}
		}
		if old := s.live.Members[name]; old != nil && old.State == state.StateWaitingApproval && old.Pane == "" {
			// Its permission request reached the lead's inbox before its pane
			// was named (a teammate the lead just spawned): it waits on that.
			old.Pane = p.ID
			w.live = old
		}
		s.panes[p.ID] = w
		s.live.Members[name] = w.live
		changed = true
		statusReady := p.DeadStatus != nil || p.DeadSignal != 0 // else the subscription tells us shortly
		if p.Dead && statusReady && w.live.State != state.StateFailed {
			// It exited while nobody watched (or before the first look): handle
			// the exit now, reporting it unless a previous supervisor did.
			reported := w.live.State == state.StateExited
			w.exitPID = strconv.Itoa(p.PID)
			now := s.clock.Now().UTC()
			w.live = &state.LiveMember{Pane: p.ID, State: state.StateExited, Since: now, ExitCode: p.DeadStatus}
			s.live.Members[name] = w.live
			if !reported {
				s.event(state.Event{Kind: state.EventExit, Member: name, Pane: p.ID, ExitCode: p.DeadStatus, Signal: p.DeadSignal, Origin: origin})
			}
			s.keepWords(w, p.DeadStatus, p.DeadSignal)
			s.afterExit(w, p.DeadStatus, p.DeadSignal, now)
		}
		if !p.Dead {
			s.requestCapture(w)
		}
	}
	for id, w := range s.panes {
		if !seen[id] {
			if w.timer != nil {
				w.timer.Stop()
			}
			if w.restartTimer != nil {
				w.restartTimer.Stop()
			}
			delete(s.panes, id)
			if other := s.watchOf(w.member); other != nil {
				// Relaunched by someone else (up, teamctl restart) in a new pane
				// in this one's place: not an exit; the new pane is its watch.
				changed = true
				continue
			}
			if w.live.State != state.StateExited && w.live.State != state.StateFailed {
				s.event(state.Event{Kind: state.EventExit, Member: w.member, Pane: id, Origin: w.origin, Detail: "pane closed"})
			}
			s.live.Members[w.member] = &state.LiveMember{Pane: id, State: state.StateExited, Since: s.clock.Now().UTC()}
			changed = true
		}
	}
	if changed {
		s.saveLive()
	}
	return nil
}

// copies deals with the panes that run a layout member without being its
// recorded pane (tmux.UnrecordedCopies): a relaunch cut short between making
// the pane and recording it (a supervisor killed, a full or read-only state
// folder). The newest copy of a member whose recorded pane is gone is
// adopted as that member (recorded, and watched as it); every other copy is
// ended (endCopy). It returns the panes not to watch now: those being ended,
// and every copy while someone holds the team's lock (an up or a restart
// between making a pane and recording it): they are looked at again shortly.
func (s *daemon) copies(ctx context.Context, panes []tmux.Pane) (skip map[string]bool) {
	adopt, end := s.unrecorded(panes)
	if len(adopt)+len(end) == 0 {
		return nil
	}
	lctx, cancel := context.WithTimeout(ctx, 0)
	unlock, err := state.Lock(lctx, s.team)
	cancel()
	switch {
	case err == nil:
		defer unlock()
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		skip = map[string]bool{}
		for _, p := range adopt {
			skip[p.ID] = true
		}
		for _, p := range end {
			skip[p.ID] = true
		}
		s.syncIn(250 * time.Millisecond)
		return skip
	default: // no lock to be had (a read-only folder…): decided all the same
		s.log.Warn("unrecorded copies without the team's lock", "err", err)
	}
	// What is recorded now, under the lock: a relaunch may have just been.
	if st, err := state.Load(s.team); err == nil {
		s.st = st
	}
	adopt, end = s.unrecorded(panes)
	skip = map[string]bool{}
	for name, p := range adopt {
		s.adoptCopy(name, p)
	}
	for _, p := range end {
		skip[p.ID] = true
		s.endCopy(ctx, p)
	}
	return skip
}

// unrecorded are the panes of s's listing that copy a layout member: those
// not watched whose @teamctl-member names a member teamctl relaunches, and
// not its pane (the one state records, or the one the daemon watches as it).
func (s *daemon) unrecorded(panes []tmux.Pane) (adopt map[string]tmux.Pane, end []tmux.Pane) {
	listed := map[string]bool{}
	for _, p := range panes {
		listed[p.ID] = true
	}
	recorded := map[string]string{}
	for _, m := range s.st.Members {
		if m.Origin == state.OriginLayout || m.Origin == "" {
			recorded[m.Name] = m.Pane
			if w := s.watchOf(m.Name); w != nil && !listed[m.Pane] && listed[w.id] {
				// Relaunched by this daemon, whose record failed (a
				// read-only state folder): the pane it watches is the one.
				recorded[m.Name] = w.id
			}
		}
	}
	var unwatched []tmux.Pane
	for _, p := range panes {
		if s.panes[p.ID] == nil && !s.ending[p.ID] {
			unwatched = append(unwatched, p)
		}
	}
	// The watched panes are listed for UnrecordedCopies to see a recorded
	// pane there; only unwatched ones can be copies.
	for _, p := range panes {
		if s.panes[p.ID] != nil {
			unwatched = append(unwatched, tmux.Pane{ID: p.ID})
		}
	}
	return tmux.UnrecordedCopies(unwatched, recorded)
}

// adoptCopy records pane p as layout member name's, whose recorded pane is
// gone: its relaunch made p and was not recorded. sync then watches it as
// that member (memberOf finds it in the state).
func (s *daemon) adoptCopy(name string, p tmux.Pane) {
	m, ok := s.st.Member(name)
	if !ok {
		return
	}
	old := m.Pane
	m.Pane, m.Window, m.PID = p.ID, p.Window, p.PID
	s.st.UpdatedAt = s.clock.Now().UTC()
	if err := state.Save(s.st); err != nil {
		// Watched as the member all the same: this daemon's copy of the
		// state has it, and the next start records it again.
		s.log.Error("state", "err", err)
	}
	s.event(state.Event{Kind: state.EventAdopted, Member: name, Pane: p.ID, Origin: state.OriginLayout,
		Detail: fmt.Sprintf("pid %d: a run of %s in a pane its relaunch did not record (%s is gone); adopted as %s", p.PID, name, old, name)})
}

// endCopy ends a second run of a member in pane p, which the state does not
// record (tmux.UnrecordedCopies): its process group (SIGTERM, grace,
// SIGKILL; p is of the team's own server's listing, so its pid is the pane's
// program), then the pane. Off the loop, which must not wait for it; until p
// is gone from the listing, sync leaves it be.
func (s *daemon) endCopy(ctx context.Context, p tmux.Pane) {
	s.ending[p.ID] = true
	s.event(state.Event{Kind: state.EventDuplicate, Member: p.Member, Pane: p.ID,
		Detail: fmt.Sprintf("pid %d: a second run of %s in a pane the state does not record; ended", p.PID, p.Member)})
	killPane := func() {
		if _, err := s.srv.Run(ctx, "kill-pane", "-t", p.ID); err != nil {
			s.log.Warn("end a second run", "pane", p.ID, "err", err)
		}
	}
	if p.Dead || p.PID <= 0 || hostOfPane(p.ID) != "" { // a remote pid is its host's: kill-pane ends it there (SIGHUP)
		go killPane()
		return
	}
	s.procs.EndGroup(ctx, p.PID, 0, copyGrace, killPane)
}

// copyGrace is how long a second run of a member gets to end on SIGTERM.
const copyGrace = 5 * time.Second

// memberOf names a pane: a member from state, else a teammate the lead
// recorded in its team config (tmuxPaneId), else "" (not known yet). A name
// from the config that teamctl may not use (claudecode.ValidMemberName: a
// newline, a slash, …) is refused: the pane gets a generated name, and the
// refused one comes back for the adoption event to report.
func (s *daemon) memberOf(p tmux.Pane) (name string, origin state.Origin, refused string) {
	if _, known := s.memberInPane(p.ID); !known {
		// up or teamctl restart may have relaunched a member in a new pane
		// (tmux.ReplacePane) and recorded it since this daemon read state.
		if st, err := state.Load(s.team); err == nil {
			s.st = st
		}
	}
	for _, m := range s.st.Members {
		if m.Pane == p.ID {
			o := m.Origin
			if o == "" {
				o = state.OriginLayout
			}
			return m.Name, o, ""
		}
	}
	path, err := claudecode.TeamConfigPath(s.claudeDir, s.st.ClaudeTeam)
	if err != nil {
		return "", "", ""
	}
	cfg, err := claudecode.ReadTeamConfig(path)
	if err != nil {
		return "", "", ""
	}
	for _, m := range cfg.Members {
		if m.TmuxPaneID == p.ID && m.Name != "" {
			if !claudecode.ValidMemberName(m.Name) {
				return s.uniqueName(paneName(p)), state.OriginLead, m.Name
			}
			return s.uniqueName(m.Name), state.OriginLead, ""
		}
	}
	return "", "", ""
}

// uniqueName keeps an adopted teammate from taking a declared member's name.
func (s *daemon) uniqueName(name string) string {
	if _, taken := s.st.Member(name); !taken {
		return name
	}
	for i := 2; ; i++ {
		n := fmt.Sprintf("%s-%d", name, i)
		if _, taken := s.st.Member(n); !taken {
			return n
		}
	}
}

func fallbackName(p tmux.Pane) string {
	if claudecode.ValidMemberName(p.Title) {
		return p.Title
	}
	return paneName(p)
}

// paneName is a name made from the pane's id (%3 is pane-3), which tmux
// makes and ListPanes checked.
func paneName(p tmux.Pane) string { return "pane-" + strings.TrimPrefix(p.ID, "%") }

// adopt records a pane the lead opened as a member of the team, with origin
// "lead": watched like any member, listed by status, ended by down, never
// restarted by teamctl. refused is the name the lead's config gave it when
// teamctl could not use that one; the event quotes it (%q), never raw.
func (s *daemon) adopt(ctx context.Context, p tmux.Pane, name, refused string) error {
	name = s.uniqueName(name)
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	unlock, err := state.Lock(lctx, s.team)
	if err != nil {
		return err
	}
	st, err := state.Load(s.team)
	if err != nil {
		unlock()
		return err
	}
	// Where it runs, as the kernel says (not as the lead's config says): a
	// Claude Code worktree is the team's for clean only when a member ran in
	// it. "" when the pane's process is gone already.
	cwd, _ := proc.Cwd(p.PID)
	st.Members = append(st.Members, state.Member{
		Name: name, Role: state.RoleTeammate, Origin: state.OriginLead, Pane: p.ID, Window: p.Window,
		PID: p.PID, Cwd: cwd, StartedAt: s.clock.Now().UTC(), Restart: "never",
	})
	st.UpdatedAt = s.clock.Now().UTC()
	err = state.Save(st)
	unlock()
	if err != nil {
		return err
	}
	s.st = st
	s.srv.Run(ctx, "set-option", "-p", "-t", p.ID, "@teamctl-member", name)
	detail := fmt.Sprintf("pid %d", p.PID)
	if refused != "" {
		refused = textsafe.Cut(refused, 100)
		detail += fmt.Sprintf("; the lead's config names it %q, which is not a name teamctl uses (letters, digits, . _ @ -, at most %d, starting with a letter or digit)", refused, claudecode.MaxMemberName)
	}
	s.event(state.Event{Kind: state.EventAdopted, Member: name, Pane: p.ID, Origin: state.OriginLead, Detail: detail})
	s.earlyAgain(ctx)
	return nil
}

// memberInPane is the state's member in pane id.
func (s *daemon) memberInPane(id string) (*state.Member, bool) {
	for i := range s.st.Members {
		if s.st.Members[i].Pane == id {
			return &s.st.Members[i], true
		}
	}
	return nil, false
}
