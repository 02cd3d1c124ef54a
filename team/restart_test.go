package team

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
)

// TestRestart: what a person's restart asks, in order — the member's pane
// listed, its running program ended first, what its pane showed kept, the
// launch the layout plans run in a new pane in its place, that pane named
// and coloured — what it records (a restart counted, the new pane) and what
// it refuses before anything is ended.
func TestRestart(t *testing.T) {
	for _, c := range []struct {
		name   string
		setup  func(f *fakeWorld)
		member string
		want   []string // the log
		err    string
		pid    int
		pane   string   // the member's pane after
		inbox  []string // worker's mailbox after ("" checks nothing)
	}{{
		name:   "a running member: ended first, its last words kept, relaunched in its place",
		setup:  func(f *fakeWorld) { f.up(f.layout("team.yaml", alpha)) },
		member: "sh",
		want: []string{
			"list-panes",
			"end group sh (grace 5s)",
			"capture-pane -p -J -S -200 -t %2",
			"replace-pane -t %2 -c ${cwd} -n sh ${env sh} -- ${run sh}",
			batch(decorateSh("%3")),
		},
		pid: 5000004, pane: "%3",
	}, {
		name: "an exited teammate: nothing to end; it starts a new conversation, so it gets its prompt again",
		setup: func(f *fakeWorld) {
			f.up(f.layout("team.yaml", alpha))
			f.server("alpha").exit("worker", 1)
		},
		member: "worker",
		want: []string{
			"list-panes",
			"capture-pane -p -J -S -200 -t %1",
			"replace-pane -t %1 -c ${cwd} -n worker ${env worker} -- ${run worker}",
			batch(decorateWorker("%3")),
		},
		pid: 5000004, pane: "%3",
		inbox: []string{"look around", "look around"},
	}, {
		name: "a teammate with a stored conversation resumes it, without its prompt again",
		setup: func(f *fakeWorld) {
			st := f.up(f.layout("team.yaml", alpha))
			m, _ := st.Member("worker")
			storeConversation(f.t, m.SessionID)
		},
		member: "worker",
		want: []string{
			"list-panes",
			"end group worker (grace 5s)",
			"capture-pane -p -J -S -200 -t %1",
			"replace-pane -t %1 -c ${cwd} -n worker ${env worker} -- ${resume worker}",
			batch(decorateWorker("%3")),
		},
		pid: 5000004, pane: "%3",
		inbox: []string{"look around"},
	}, {
		name: "the lead resumes its conversation",
		setup: func(f *fakeWorld) {
			st := f.up(f.layout("team.yaml", alpha))
			storeConversation(f.t, st.LeadSessionID)
		},
		member: "lead",
		want: []string{
			"list-panes",
			"end group lead (grace 5s)",
			"capture-pane -p -J -S -200 -t %0",
			"replace-pane -t %0 -c ${cwd} -n lead ${env lead} -- ${resume lead}",
			"select-pane -t %3 -T lead ; set-option -p -t %3 @teamctl-member lead",
		},
		pid: 5000004, pane: "%3",
	}, {
		name: "refused: a teammate the lead spawned is the lead's to restart",
		setup: func(f *fakeWorld) {
			f.up(f.layout("team.yaml", alpha))
			st := f.state("alpha")
			st.Members = append(st.Members, state.Member{Name: "helper", Role: state.RoleTeammate, Origin: state.OriginLead, Pane: "%9"})
			if err := state.Save(st); err != nil {
				f.t.Fatal(err)
			}
		},
		member: "helper",
		err:    "helper was spawned by the lead, which restarts its own teammates",
	}, {
		name: "refused: a launch the layout changed since, before anything is ended",
		setup: func(f *fakeWorld) {
			f.up(f.layout("team.yaml", alpha))
			f.layout("team.yaml", alphaChanged)
		},
		member: "sh",
		err:    "restart sh: sh: its launch in the layout is not the one it was started with",
	}, {
		name: "refused: its pane is gone",
		setup: func(f *fakeWorld) {
			f.up(f.layout("team.yaml", alpha))
			f.server("alpha").close("sh")
		},
		member: "sh",
		want:   []string{"list-panes"},
		err:    "restart sh: its pane %2 is gone: `teamctl up ${cwd}/team.yaml` brings it back",
	}, {
		name: "refused: the team's server is gone",
		setup: func(f *fakeWorld) {
			f.up(f.layout("team.yaml", alpha))
			f.server("alpha").lose()
		},
		member: "sh",
		want:   []string{"list-panes"},
		err:    "team alpha's tmux server is gone: `teamctl up ${cwd}/team.yaml` brings it back",
	}, {
		name:   "refused: no such member",
		setup:  func(f *fakeWorld) { f.up(f.layout("team.yaml", alpha)) },
		member: "nobody",
		err:    `team alpha has no member "nobody"`,
	}} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeWorld(t)
			c.setup(f)
			f.clock.now = f.clock.now.Add(time.Hour)
			st := f.state("alpha")
			f.planned(f.parse("team.yaml"), st.LeadSessionID)
			before, _ := st.Member(c.member)
			pid, err := f.open("alpha").Restart(f.ctx, c.member)
			f.wantLog(c.want...)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), f.expand(c.err)) {
					t.Errorf("restart: %v, want an error saying %q", err, f.expand(c.err))
				}
				if after, _ := f.state("alpha").Member(c.member); before != nil && (after.Pane != before.Pane || after.Restarts != before.Restarts) {
					t.Errorf("a refused restart recorded %s in pane %s, restarts %d", c.member, after.Pane, after.Restarts)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pid != c.pid {
				t.Errorf("pid %d, want %d", pid, c.pid)
			}
			st = f.state("alpha")
			m, _ := st.Member(c.member)
			if m.Pane != c.pane || m.PID != c.pid || m.Restarts != 1 || !m.StartedAt.Equal(f.clock.now) {
				t.Errorf("recorded in pane %s, pid %d, restarts %d, started %s; want %s, %d, 1, %s", m.Pane, m.PID, m.Restarts, m.StartedAt, c.pane, c.pid, f.clock.now)
			}
			evs := f.events("alpha", state.EventRestart)
			if len(evs) != 1 || evs[0].Member != c.member || evs[0].Pane != c.pane || evs[0].Restarts != 1 || evs[0].Detail != "(by a person) pid "+strconv.Itoa(c.pid) {
				t.Errorf("restart events %+v", evs)
			}
			if lw, _ := state.ReadLastWords("alpha", c.member); lw == nil || lw.Pane != before.Pane {
				t.Errorf("last words %+v, want those of pane %s", lw, before.Pane)
			}
			if c.inbox != nil {
				if got := inboxTexts(t, st, "worker"); !slices.Equal(got, c.inbox) {
					t.Errorf("worker's mailbox %q, want %q", got, c.inbox)
				}
			}
		})
	}
}
