package supervisor

import (
	"io/fs"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor/internal/filewatch"
)

// teamWorld is a world whose lead (a Claude Code lead of the team's session)
// has fake processes: procs say what it claims.
func teamWorld(t *testing.T) (*world, *fakeProcs, int) {
	t.Helper()
	w := newWorld(t, "", member{"lead", state.RoleLead, "never"}, member{"mate", state.RoleTeammate, "never"})
	procs := &fakeProcs{tree: map[int][]int{}}
	w.s.procs = procs
	m, _ := w.s.st.Member("lead")
	m.SessionID = w.s.st.LeadSessionID
	return w, procs, w.s.panes[w.paneOf("lead")].pid
}

// ownConfig is the team's own config.json as read, naming pid as its lead.
func ownConfig(w *world, pid int) configRead {
	cfg := claudecode.MinimalTeamConfig(w.s.st.ClaudeTeam, w.s.st.LeadSessionID, "/", pid, w.clock.Now())
	return configRead{path: w.s.files.Paths().Config, cfg: &cfg}
}

func noConfig(w *world) configRead {
	path := w.s.files.Paths().Config
	return configRead{path: path, err: &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}}
}

// claims has every process claim team name, whose lead session is session.
func claims(name, session string) func(int) (string, *claudecode.TeamConfig, bool) {
	return func(pid int) (string, *claudecode.TeamConfig, bool) {
		cfg := claudecode.MinimalTeamConfig(name, session, "/", pid, time.Now())
		return name, &cfg, true
	}
}

// TestTeamTheLeadClaimed: the team's config as read, the team the lead's
// process claims, and exactly what the daemon decides as the lead holds it
// past teamSettle: nothing while the lead holds its own team (itself or
// under a wrapper); the lead followed (team-moved, in state, the files
// watched moved) to a team of Claude Code's naming that no other teamctl
// team records; never to another; and a lead whose own team waits for it
// ended, to be restarted into it, instead of followed.
func TestTeamTheLeadClaimed(t *testing.T) {
	const other, otherSession = "session-77777777", "77777777-0000-4000-8000-000000000000"
	for _, c := range []struct {
		name      string
		own       func(w *world, lead int) configRead
		claim     func(int) (string, *claudecode.TeamConfig, bool)
		setup     func(t *testing.T, procs *fakeProcs, lead int)
		moved     bool // followed to other
		relaunch  bool // ended to take its own team
		noLookFor bool // the own config says enough: ClaimedTeam never asked
	}{
		{name: "its own, claimed by the lead", own: ownConfig, noLookFor: true},
		{name: "its own, claimed under a wrapper", own: func(w *world, lead int) configRead { return ownConfig(w, lead+1) },
			setup: func(_ *testing.T, procs *fakeProcs, lead int) { procs.tree[lead] = []int{lead + 1} }, noLookFor: true},
		{name: "none claimed yet", own: func(w *world, _ int) configRead { return noConfig(w) }},
		{name: "another, of Claude Code's naming", own: func(w *world, _ int) configRead { return noConfig(w) },
			claim: claims(other, otherSession), moved: true},
		{name: "another, named otherwise", own: func(w *world, _ int) configRead { return noConfig(w) },
			claim: claims("elsewhere", otherSession)},
		{name: "another, with no session id", own: func(w *world, _ int) configRead { return noConfig(w) },
			claim: claims(other, "--dangerously-skip-permissions")},
		{name: "another teamctl team's", own: func(w *world, _ int) configRead { return noConfig(w) },
			claim: claims(other, otherSession), setup: func(t *testing.T, _ *fakeProcs, _ int) {
				saveTeam(t, &state.Team{Team: "other", ClaudeTeam: other, LeadSessionID: otherSession})
			}},
		{name: "another while its own waits for it", own: func(w *world, _ int) configRead { return ownConfig(w, claudecode.NoPID) },
			claim: claims(other, otherSession), relaunch: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, procs, lead := teamWorld(t)
			procs.claim = c.claim
			if c.setup != nil {
				c.setup(t, procs, lead)
			}
			relaunches, ownDir := len(w.srv.relaunched), w.s.files.Paths().TeamDir
			var got []state.Event
			for range 3 {
				got = append(got, w.written(func() {
					w.s.checkTeam(w.ctx, c.own(w, lead))
					w.advance(teamSettle) // the lead holds it that long
				})...)
			}
			var want []wantEvent
			switch {
			case c.moved:
				want = append(want, wantEvent{state.EventTeamMoved, "lead", "claimed Claude Code team " + other + ", not session-0123abcd; following it"})
			case c.relaunch:
				want = append(want, wantEvent{state.EventRestart, "lead", "could not take its Claude Code team session-0123abcd over and kept " + other})
			}
			checkEvents(t, got, want)
			st, _ := state.Load("decide")
			if followed := st.ClaudeTeam == other && st.ClaudeTeamSession == otherSession && w.s.files.Paths().TeamDir != ownDir; followed != c.moved {
				t.Errorf("followed: %v (state's claude_team %q, files of %s)", followed, st.ClaudeTeam, w.s.files.Paths().TeamDir)
			}
			if c.moved && !w.s.files.Take(false)[filewatch.Config] {
				t.Error("the new team's files are not read")
			}
			if n := len(procs.groups()); n != 0 != c.relaunch || n > 1 || (n == 1 && procs.groups()[0] != lead) {
				t.Errorf("process groups ended: %v", procs.groups())
			}
			if c.noLookFor && procs.claims != 0 {
				t.Errorf("%d looks for the team the lead claimed", procs.claims)
			}
			if !c.relaunch {
				return
			}
			// The lead ends on the signal; it is back at once, whatever its
			// restart policy (never).
			w.exit("lead", "", "15")
			w.advance(10 * time.Millisecond)
			if n := len(w.srv.relaunched) - relaunches; n != 1 {
				t.Errorf("the lead was relaunched %d times, want once", n)
			}
		})
	}
}

// TestATeamIsFollowedOnlyOnceItSettled: a lead that lets the other team go
// before teamSettle, and claims it again, is followed only teamSettle after
// it claimed it again.
func TestATeamIsFollowedOnlyOnceItSettled(t *testing.T) {
	const other, otherSession = "session-77777777", "77777777-0000-4000-8000-000000000000"
	w, procs, _ := teamWorld(t)
	look := func(claim func(int) (string, *claudecode.TeamConfig, bool), then time.Duration) int {
		procs.claim = claim
		n := len(w.written(func() { w.s.checkTeam(w.ctx, noConfig(w)) }))
		w.advance(then)
		return n
	}
	moved := look(claims(other, otherSession), teamSettle/2)
	moved += look(claims(w.s.st.ClaudeTeam, w.s.st.LeadSessionID), teamSettle/2) // back in its own
	moved += look(claims(other, otherSession), teamSettle/2)
	moved += look(claims(other, otherSession), teamSettle/2)
	if moved != 0 {
		t.Fatalf("%d events before the lead held the team for %s", moved, teamSettle)
	}
	if got := w.written(func() { w.s.checkTeam(w.ctx, noConfig(w)) }); len(got) != 1 || got[0].Kind != state.EventTeamMoved {
		t.Errorf("events once it held it for %s: %+v", teamSettle, got)
	}
}

// TestALeadIsRelaunchedForItsOwnTeamOnlySoOften: a lead that still keeps the
// other team after teamReclaims relaunches in a row is followed there.
func TestALeadIsRelaunchedForItsOwnTeamOnlySoOften(t *testing.T) {
	const other, otherSession = "session-77777777", "77777777-0000-4000-8000-000000000000"
	w, procs, _ := teamWorld(t)
	procs.claim = claims(other, otherSession)
	for i := 0; len(w.events(state.EventTeamMoved, "")) == 0; i++ {
		if i == 10 {
			t.Fatalf("never followed; process groups ended: %v", procs.groups())
		}
		w.s.checkTeam(w.ctx, ownConfig(w, claudecode.NoPID))
		w.advance(teamSettle)
		if n := len(procs.groups()); n > 0 && w.live("lead").State != state.StateExited && w.s.watchOf("lead").reclaiming {
			w.exit("lead", "", "15") // it ends on the signal, and is back at once
			w.advance(10 * time.Millisecond)
		}
	}
	if n := len(procs.groups()); n != teamReclaims {
		t.Errorf("the lead was ended %d times to take its own team, want %d", n, teamReclaims)
	}
	if n := len(w.events(state.EventRestart, "lead")); n != 2*teamReclaims {
		t.Errorf("%d restart events, want %d (each relaunch said, then done)", n, 2*teamReclaims)
	}
}

// TestLooksForTheTeamAreBounded: while a new lead process claims no team,
// the daemon looks again every teamLookEvery, teamLooks times, then waits for
// a reason to look (a file event, the lead starting again).
func TestLooksForTheTeamAreBounded(t *testing.T) {
	w, procs, _ := teamWorld(t)
	w.advance(teamLookEvery)
	w.s.files.Take(false)             // the first look's looks again: not followed here
	w.s.panes[w.paneOf("lead")].pid++ // a new lead process: looked for afresh
	w.s.checkTeam(w.ctx, noConfig(w))
	looks := 0
	for {
		w.advance(teamLookEvery)
		if !w.s.files.Take(false)[filewatch.Teams] {
			break
		}
		looks++
		if looks > 2*teamLooks {
			t.Fatal("the looks never end")
		}
		w.s.checkTeam(w.ctx, noConfig(w))
	}
	if looks != teamLooks || procs.claims != teamLooks+1 {
		t.Errorf("%d looks again (%d asks), want %d", looks, procs.claims, teamLooks)
	}
}
