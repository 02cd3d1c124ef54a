package supervisor

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// editState changes state.json as anyone running as the user can (an agent's
// Bash tool): teamctl's own record, rewritten behind its back.
func (w *world) editState(fn func(*state.Team)) {
	w.t.Helper()
	st, err := state.Load("decide")
	if err != nil {
		w.t.Fatal(err)
	}
	fn(st)
	if err := state.Save(st); err != nil {
		w.t.Fatal(err)
	}
}

// TestRestartRunsTheLayoutNotTheRecord: an argv and an env (LD_PRELOAD)
// written into state.json for a member are not what its restart runs: the
// supervisor relaunches it as the layout plans it (the launch it was started
// with), and records that.
func TestRestartRunsTheLayoutNotTheRecord(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"web", state.RoleProcess, ""})
	want, _ := w.s.st.Member("web")
	wantArgv, wantEnv := slices.Clone(want.Argv), slices.Clone(want.Env)
	w.editState(func(st *state.Team) {
		m, _ := st.Member("web")
		m.Argv = []string{"/bin/sh", "-c", "touch /tmp/pwned"}
		m.Env = append(m.Env, "LD_PRELOAD=/tmp/evil.so")
	})
	w.exit("web", "3", "")
	w.advance(time.Minute)
	if len(w.srv.relaunched) != 1 {
		t.Fatalf("%d relaunches, want 1; events %v", len(w.srv.relaunched), w.events(state.EventFailed, "web"))
	}
	if got := w.srv.relaunched[0]; !slices.Equal(got, wantArgv) {
		t.Errorf("relaunched as %q, want the layout's %q", got, wantArgv)
	}
	if env := w.srv.relaunchEnv[0]; !slices.Equal(env, wantEnv) {
		t.Errorf("relaunched with env %q, want the layout's %q", env, wantEnv)
	}
	st, _ := state.Load("decide")
	if m, _ := st.Member("web"); !slices.Equal(m.Argv, wantArgv) || slices.Contains(m.Env, "LD_PRELOAD=/tmp/evil.so") {
		t.Errorf("state records %q env %q after the restart", m.Argv, m.Env)
	}
}

// TestRestartRefusesALaunchThatChanged: a member whose launch in the layout
// is no longer the one it was started with (the layout file edited: another
// command) is not restarted; it is failed, saying why and what to run.
func TestRestartRefusesALaunchThatChanged(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"web", state.RoleProcess, ""})
	data, err := os.ReadFile(w.s.st.LayoutPath)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `command: [sleep, "1000"]`, `command: [sh, "-c", "touch /tmp/pwned"]`, 1)
	if edited == string(data) {
		t.Fatalf("layout without web's command:\n%s", data)
	}
	if err := os.WriteFile(w.s.st.LayoutPath, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	w.exit("web", "3", "")
	w.advance(time.Minute)
	if len(w.srv.relaunched) != 0 {
		t.Errorf("relaunched as %q", w.srv.relaunched)
	}
	got := w.live("web")
	if got.State != state.StateFailed || !strings.Contains(got.Reason, "--recreate") {
		t.Errorf("web after its exit: %+v, want failed saying --recreate", got)
	}
	if evs := w.events(state.EventFailed, "web"); len(evs) != 1 || !strings.Contains(evs[0].Detail, "not the one it was started with") {
		t.Errorf("failed events %+v", evs)
	}
}

// TestRestartRefusesAnEditedLeadSession: a lead session in state.json that is
// not a session id (one that would read as a flag) never reaches the lead's
// argv: its restart is refused, naming the field.
func TestRestartRefusesAnEditedLeadSession(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, "always"}, member{"web", state.RoleProcess, ""})
	w.editState(func(st *state.Team) { st.LeadSessionID = "--dangerously-skip-permissions" })
	w.exit("lead", "0", "")
	w.advance(time.Minute)
	for _, argv := range w.srv.relaunched {
		if slices.ContainsFunc(argv, func(a string) bool { return strings.Contains(a, "dangerously") }) {
			t.Errorf("relaunched as %q", argv)
		}
	}
	if got := w.live("lead"); got.State != state.StateFailed || !strings.Contains(got.Reason, "lead_session_id") {
		t.Errorf("lead after its exit: %+v, want failed naming lead_session_id", got)
	}
}

// cutShortRelaunch is what a relaunch of member leaves when it is cut short
// after tmux made the new pane (named for the member, the old one gone) and
// before state.json recorded it: a supervisor killed there, or a full or
// read-only state folder.
func (w *world) cutShortRelaunch(member string) tmux.NewPane {
	w.t.Helper()
	np, err := w.srv.ReplacePane(w.ctx, w.paneOf(member), "/", nil, []string{"/bin/" + member}, member)
	if err != nil {
		w.t.Fatal(err)
	}
	return np
}

// TestUnrecordedRunIsAdopted: a supervisor that starts where a relaunch was
// cut short (the member runs in a pane the state does not record, named for
// it; its recorded pane gone) takes that pane as the member's: recorded,
// watched, no exit reported, nothing relaunched, no second copy.
func TestUnrecordedRunIsAdopted(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"web", state.RoleProcess, "always"})
	np := w.cutShortRelaunch("web")
	w.restartSupervisor()
	w.advance(time.Minute)
	st, _ := state.Load("decide")
	if m, _ := st.Member("web"); m.Pane != np.ID || m.PID != np.PID {
		t.Errorf("state records web in %s pid %d, want the run in %s pid %d", m.Pane, m.PID, np.ID, np.PID)
	}
	if got := w.paneOf("web"); got != np.ID {
		t.Errorf("web is watched in %s, want %s", got, np.ID)
	}
	if got := w.live("web"); got.State != state.StateRunning || got.Pane != np.ID {
		t.Errorf("web: %+v", got)
	}
	if len(w.srv.relaunched) != 1 || len(w.events(state.EventExit, "web")) != 0 {
		t.Errorf("%d relaunches, exits %v", len(w.srv.relaunched), w.events(state.EventExit, "web"))
	}
	if evs := w.events(state.EventAdopted, "web"); len(evs) != 1 || evs[0].Origin != state.OriginLayout {
		t.Errorf("adopted events %+v, want one of a layout member", evs)
	}
	// Watched as web: its exit is restarted as web's.
	w.exit("web", "3", "")
	w.advance(time.Minute)
	if n := len(w.events(state.EventRestart, "web")); n != 1 {
		t.Errorf("%d restarts after the adopted run exited", n)
	}
}

// TestSecondRunIsEnded: a pane named for a member beside the member's
// recorded pane, which is there (a second run), is ended — its process and
// its pane — and never watched as the member; the recorded pane stays the
// member's. Its process group is ended through the daemon's one seam for
// that (processes.EndGroup), and its pane killed once the group is gone.
func TestSecondRunIsEnded(t *testing.T) {
	w := newWorld(t, "", member{"lead", state.RoleLead, ""}, member{"web", state.RoleProcess, ""})
	procs := &fakeProcs{}
	w.s.procs = procs
	w.srv.mu.Lock()
	w.srv.nextPID++
	pid := w.srv.nextPID
	w.srv.panes = append(w.srv.panes, &fakePane{Pane: tmux.Pane{ID: "%50", PID: pid, SessionID: "$0", Session: "decide", Member: "web"}, version: 1})
	w.srv.mu.Unlock()
	w.srv.ctl.notes <- notification("layout-change", "", "")
	w.advance(time.Second)
	if got, want := procs.calls(), []string{fmt.Sprintf("%d 0s %s", pid, copyGrace)}; !slices.Equal(got, want) {
		t.Errorf("process groups ended: %q, want %q", got, want)
	}
	if !w.srv.ran("kill-pane", "-t", "%50") {
		t.Fatal("the second run's pane was not killed")
	}
	if got := w.paneOf("web"); got != "%1" {
		t.Errorf("web is watched in %s, want its recorded %%1", got)
	}
	if w.s.panes["%50"] != nil {
		t.Errorf("the second run is watched as %s", w.s.panes["%50"].member)
	}
	if evs := w.events(state.EventDuplicate, "web"); len(evs) != 1 || evs[0].Pane != "%50" {
		t.Errorf("duplicate events %+v", evs)
	}
	st, _ := state.Load("decide")
	if m, _ := st.Member("web"); m.Pane != "%1" {
		t.Errorf("state records web in %s", m.Pane)
	}
}
