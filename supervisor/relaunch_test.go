package supervisor

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
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
