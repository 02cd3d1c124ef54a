package team

import (
	"context"
	"fmt"
	"slices"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/relaunch"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// reconcile completes a team whose server is up: members whose pane is gone get
// a new one, members whose program exited are relaunched in their pane, members
// whose launch changed are relaunched only with Recreate, the rest are left alone.
func (u *upRun) reconcile(ctx context.Context, prev *state.Team) error {
	u.st = prev
	u.st.Worktrees = u.wts
	u.st.ClaudeConfig = u.configDir() // where it writes: never the record's (relaunch.ClaudeConfigDir)
	plan, err := u.planned(prev.LeadSessionID)
	if err != nil {
		return err
	}
	panes, err := u.srv.ListPanes(ctx)
	if err != nil {
		return err
	}
	if id, name, ok := teamSession(prev, panes); ok {
		u.target, u.st.Session = id, name // renamed by hand: still the team's, under its new name
	} else {
		u.target = tmux.SessionTarget(prev.Session)
	}
	panes = u.settleCopies(ctx, panes)
	byID := map[string]tmux.Pane{}
	for _, p := range panes {
		byID[p.ID] = p
	}

	var missing, respawn []launch.Launch
	inLayout := map[string]bool{}
	for _, x := range plan {
		inLayout[x.Member.Name] = true
		m, ok := u.st.Member(x.Member.Name)
		p, live := tmux.Pane{}, false
		if ok {
			p, live = byID[m.Pane]
		}
		if ok && m.Digest != x.Digest && m.Digest == x.OldDigest {
			// Recorded by a teamctl whose digest held its own path: the same
			// launch, recorded from now on without the path.
			m.Digest = x.Digest
		}
		if ok && m.Digest != x.Digest && m.SessionID == "" && m.Role == state.RoleTeammate && m.Digest == x.NoSessionDigest {
			// A teammate an older teamctl launched without a session of its
			// own: the same launch otherwise, left running as it is.
			m.Digest = x.Digest
		}
		switch {
		case !live:
			if ok {
				u.st.Members = removeMember(u.st.Members, m.Name)
			}
			missing = append(missing, x)
		case p.Dead:
			// Relaunched as the layout the person named plans it (x), as
			// every relaunch is (launch.Relaunch), never as state.json
			// recorded it; a launch changed in that layout is theirs to run.
			respawn = append(respawn, x)
		case m.Digest != x.Digest && u.o.Recreate:
			respawn = append(respawn, x)
		case m.Digest != x.Digest:
			u.res.Kept = append(u.res.Kept, x.Member.Name)
			u.note("%s changed in the layout and keeps running as it was; `teamctl up --recreate` restarts it", x.Member.Name)
		default:
			u.res.Kept = append(u.res.Kept, x.Member.Name)
			u.progress("%-16s %-8s pane %-4s pid %d (already running)", m.Name, m.Role, m.Pane, m.PID)
		}
	}
	for _, m := range u.st.Members {
		if !inLayout[m.Name] && m.Origin != state.OriginLead {
			u.note("%s is no longer in the layout; it keeps running until `teamctl down`", m.Name)
		}
	}
	u.st.LayoutPath, u.st.LayoutDigest, u.st.LayoutFile = u.l.Path, u.l.Digest, stampOf(u.l.Path)

	if err := u.prepareTeammates(ctx, append(append([]launch.Launch{}, missing...), respawn...)); err != nil {
		return err
	}
	if err := u.respawn(ctx, respawn, byID); err != nil {
		return err
	}
	missing, remote := splitRemote(missing)
	if err := u.create(ctx, missing); err != nil {
		return err
	}
	if err := u.createRemote(ctx, remote); err != nil {
		return err
	}
	return state.Save(u.st)
}

// settleCopies deals with the panes that run a layout member without being
// its recorded pane (tmux.UnrecordedCopies: a relaunch cut short between
// making the pane and recording it) before anything is started, so that up
// never starts a second copy of a member: the newest copy of a member whose
// recorded pane is gone is recorded as its pane, every other copy is ended
// (its process group, then its pane). It returns the panes left.
func (u *upRun) settleCopies(ctx context.Context, panes []tmux.Pane) []tmux.Pane {
	recorded := map[string]string{}
	for _, m := range u.st.Members {
		if m.Origin != state.OriginLead {
			recorded[m.Name] = m.Pane
		}
	}
	adopt, end := tmux.UnrecordedCopies(panes, recorded)
	for name, p := range adopt {
		m, _ := u.st.Member(name)
		u.note("%s runs in pane %s, which its relaunch did not record (%s is gone): taken as its pane", name, p.ID, m.Pane)
		m.Pane, m.Window, m.PID = p.ID, p.Window, p.PID
	}
	gone := map[string]bool{}
	for _, p := range end {
		u.note("%s ran a second time, in pane %s, which teamctl did not record: ended", p.Member, p.ID)
		if !p.Dead && p.PID > 0 && onThisMachine(p.ID) { // on another host, kill-pane ends it (SIGHUP)
			u.w.procs.End(ctx, []proc.Target{proc.Group(p.PID)}, relaunchGrace)
		}
		if _, err := u.srv.Run(ctx, "kill-pane", "-t", p.ID); err != nil {
			u.note("could not remove pane %s: %v", p.ID, err)
		}
		gone[p.ID] = true
	}
	return slices.DeleteFunc(panes, func(p tmux.Pane) bool { return gone[p.ID] })
}

func (u *upRun) note(format string, a ...any) {
	n := fmt.Sprintf(format, a...)
	u.res.Notes = append(u.res.Notes, n)
	u.progress("note: %s", n)
}

// respawn relaunches members in new panes in their places (tmux.ReplacePane:
// respawn-pane can crash tmux), each once its old run is over
// (clearForRelaunch), with its new pane recorded. panes are the server's, by id.
func (u *upRun) respawn(ctx context.Context, launches []launch.Launch, panes map[string]tmux.Pane) error {
	for _, x := range launches {
		m, _ := u.st.Member(x.Member.Name)
		note, err := clearForRelaunch(ctx, u.w, u.srv, u.st, m, panes[m.Pane], u.progress)
		if err != nil {
			return fmt.Errorf("relaunch %s: %w", x.Member.Name, err)
		}
		if note != "" {
			u.note("%s", note)
		}
		np, err := relaunch.InPlace(ctx, u.srv, m, x, u.resumes(x))
		if err != nil {
			return fmt.Errorf("relaunch %s: %w", x.Member.Name, err)
		}
		if err := u.record(x, fmt.Sprintf("%s\x1f%d\x1f%s", np.ID, np.PID, np.Window), u.w.clock.Now().UTC()); err != nil {
			return err
		}
		u.res.Respawned = append(u.res.Respawned, x.Member.Name)
	}
	return nil
}

// resumes reports whether x has a conversation Claude Code stored under its
// session, which its launch then resumes.
func (u *upRun) resumes(x launch.Launch) bool {
	if x.Member.Host != "" {
		return false // its conversation is on its host: not resumed yet
	}
	if x.Member.OtherAgent() != "" {
		return !u.fresh && relaunch.Resumes("", u.l.Team, x)
	}
	return x.SessionID != "" && u.st != nil && claudecode.SessionExists(u.st.ClaudeConfig, x.SessionID)
}

// argv is what x runs: its argv, or, when it resumes, the same with --resume
// (Claude Code refuses a --session-id whose conversation exists: "Session ID
// … is already in use").
func (u *upRun) argv(x launch.Launch) []string {
	return x.ArgvFor(u.resumes(x))
}

func removeMember(ms []state.Member, name string) []state.Member {
	out := ms[:0]
	for _, m := range ms {
		if m.Name != name {
			out = append(out, m)
		}
	}
	return out
}
