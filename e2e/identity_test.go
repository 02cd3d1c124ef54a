package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/teamctl/teamctl/internal/fakeapi"
	"github.com/teamctl/teamctl/internal/proc"
)

// One team, one identity: whatever happens to the lead, its Claude Code team
// stays session-<first 8 of its session>, the only team folder of the world,
// and the teammates the lead spawns with its Agent tool are adopted.

// spawnToken is what a lead's turn must hold for the fake model to answer it
// with the Agent tool, spawning teammate name.
func spawnToken(name string) string { return "SPAWN-" + strings.ToUpper(name) + "-NOW" }

// spawning is the fake model of these tests: a turn holding spawnToken(name)
// is answered with the Agent tool spawning teammate name (Claude Code opens it
// in a new tmux pane, the lead running with --teammate-mode tmux); the tool's
// result with a short text; everything else with "ok".
func spawning(names ...string) fakeapi.Script {
	rules := []fakeapi.Rule{{When: fakeapi.AfterToolResult(), Reply: fakeapi.Always(fakeapi.Text("Spawned; waiting for it."))}}
	for _, n := range names {
		rules = append(rules, fakeapi.Rule{When: fakeapi.LastUserContains(spawnToken(n)), Reply: fakeapi.Always(fakeapi.ToolUse("Agent",
			map[string]any{"description": "Scout the code", "prompt": "Look around the code and report; token " + strings.ToUpper(n) + "-TASK.", "name": n}))})
	}
	return fakeapi.Rules(rules...)
}

// spawner is a lead that spawns teammate name as its first turn. Its
// permission mode is acceptEdits: in the default auto mode, behind a gateway
// (the fake API), Claude Code asks before every Agent call.
func spawner(name string) lead {
	return lead{prompt: "Please " + spawnToken(name) + ".", permissionMode: "acceptEdits"}
}

// teamConfig is the part of Claude Code's team config.json these tests read.
type teamConfig struct {
	Name          string `json:"name"`
	LeadSessionID string `json:"leadSessionId"`
	LeadProcess   *struct {
		PID int `json:"pid"`
	} `json:"leadProcess"`
	Members []struct {
		Name       string `json:"name"`
		TmuxPaneID string `json:"tmuxPaneId"`
	} `json:"members"`
}

// state is the part of teamctl's state.json these tests read.
type teamState struct {
	ClaudeTeam    string `json:"claude_team"`
	LeadSessionID string `json:"lead_session_id"`
}

func (w *world) teamState() teamState {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.stateDir(), "state.json"))
	if err != nil {
		w.t.Fatal(err)
	}
	var st teamState
	if err := json.Unmarshal(b, &st); err != nil {
		w.t.Fatal(err)
	}
	return st
}

// teamFolders lists Claude Code's team folders (teams/*).
func (w *world) teamFolders() []string {
	ents, _ := os.ReadDir(filepath.Join(w.e.ClaudeDir, "teams"))
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func (w *world) readTeamConfig(team string) (teamConfig, error) {
	var c teamConfig
	b, err := os.ReadFile(filepath.Join(w.e.ClaudeDir, "teams", team, "config.json"))
	if err != nil {
		return c, err
	}
	return c, json.Unmarshal(b, &c)
}

// waitIdentity waits until the team has its one identity: state's
// claude_team is session-<first 8 of the lead's session>, the only folder in
// teams/, and its config.json names the lead's session and is claimed by the
// lead's process as status shows it (pid). It returns that config.
func (w *world) waitIdentity(why string, leadSession string) teamConfig {
	w.t.Helper()
	want := "session-" + leadSession[:8]
	var cfg teamConfig
	poll(w.t, wait, "one team, "+want+", claimed by the lead "+why, func() (bool, string) {
		st := w.teamState()
		lead, _ := w.status().member("lead")
		folders := w.teamFolders()
		var err error
		cfg, err = w.readTeamConfig(want)
		seen := fmt.Sprintf("state: %+v; teams/: %q; %s/config.json: %+v (%v); lead pid %d", st, folders, want, cfg, err, lead.PID)
		return st.ClaudeTeam == want && st.LeadSessionID == leadSession && slices.Equal(folders, []string{want}) && err == nil &&
			cfg.LeadSessionID == leadSession && cfg.LeadProcess != nil && cfg.LeadProcess.PID == lead.PID, seen
	})
	return cfg
}

// waitAdopted waits until status lists teammate name as spawned by the lead
// (origin "lead") in the pane the lead's config gives it, and returns its pane.
func (w *world) waitAdopted(name, leadSession string) string {
	w.t.Helper()
	team := "session-" + leadSession[:8]
	var pane string
	poll(w.t, wait, name+" adopted with origin lead", func() (bool, string) {
		st := w.status()
		m, ok := st.member(name)
		cfg, err := w.readTeamConfig(team)
		inConfig := false
		for _, c := range cfg.Members {
			inConfig = inConfig || (c.Name == name && c.TmuxPaneID == m.Pane)
		}
		pane = m.Pane
		return ok && m.Origin == "lead" && m.Role == "teammate" && m.Pane != "" && inConfig && m.State != "exited",
			fmt.Sprintf("status: %+v\n%s config (%v): %+v\nevents:\n%s", st, team, err, cfg, eventLines(w.events()))
	})
	return pane
}

// claudeRunning is member name's status once Claude Code itself runs in its
// pane: under load the first status after a spawned teammate's adoption
// gave a pid that was gone a second later, in the same pane (Claude Code
// setting the pane up), and a check that the teammate outlived something
// failed on it.
func (w *world) claudeRunning(name string) memberStatus {
	w.t.Helper()
	var m memberStatus
	poll(w.t, wait, "Claude Code running in "+name+"'s pane", func() (bool, string) {
		m, _ = w.status().member(name)
		argv, err := proc.Cmdline(m.PID)
		return err == nil && len(argv) > 0 && filepath.Base(argv[0]) == "claude", fmt.Sprintf("%+v: %q %v", m, argv, err)
	})
	return m
}

// typeInto types text into a Claude Code pane at its input box, then Enter
// once the text shows there (Claude Code reads keys only once it drew it).
func (w *world) typeInto(pane, text string) {
	w.t.Helper()
	w.waitScreens("the input box of pane "+pane, map[string]string{"lead": pane}, func(_, s string) bool { _, ok := inputBox(s); return ok })
	if out, err := w.e.Tmux(w.socket(), "send-keys", "-t", pane, "-l", text); err != nil {
		w.t.Fatalf("send-keys: %v %s", err, out)
	}
	w.waitScreens(fmt.Sprintf("%q typed into pane %s", text, pane), map[string]string{"lead": pane}, func(_, s string) bool {
		return strings.Contains(strings.ReplaceAll(s, "\u00a0", " "), "❯ "+text) // the input box's "❯" is followed by a no-break space
	})
	if out, err := w.e.Tmux(w.socket(), "send-keys", "-t", pane, "Enter"); err != nil {
		w.t.Fatalf("send-keys: %v %s", err, out)
	}
}

// waitLeadRestarted waits until the lead runs again in a new process after
// one that was pid, and returns the new pid and argv.
func (w *world) waitLeadRestarted(pid int) (int, []string) {
	w.t.Helper()
	var now int
	var argv []string
	poll(w.t, wait, fmt.Sprintf("the lead running again after pid %d", pid), func() (bool, string) {
		m, _ := w.status().member("lead")
		now = m.PID
		argv, _ = proc.Cmdline(now)
		if now == pid || now <= 0 || !proc.Alive(now) || !isBinary(now, argv, w.claude) {
			return false, fmt.Sprintf("%+v %q\nevents:\n%s", m, argv, eventLines(w.events()))
		}
		// Read again once it is Claude Code: read while the process was
		// exec'ing, its command line was empty (seen once).
		argv, _ = proc.Cmdline(now)
		return len(argv) > 0, fmt.Sprintf("%+v %q", m, argv)
	})
	return now, argv
}

// checkResumed fails unless argv resumes session sid (--resume=sid, no
// --session-id).
func checkResumed(t *testing.T, argv []string, sid string) {
	t.Helper()
	if flagValue(argv, "--resume") != sid || flagValue(argv, "--session-id") != "" {
		t.Errorf("relaunched as %q, want --resume=%s", argv, sid)
	}
}

// flagValue is flag's value in argv, given as --flag=value (as teamctl gives
// session ids) or as the argument after it; "" when absent.
func flagValue(argv []string, flag string) string {
	for i, a := range argv {
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
		if a == flag && i+1 < len(argv) {
			return argv[i+1]
		}
	}
	return ""
}

// TestLeadSpawnedTeammateIsAdopted: in a layout with only a lead, the teammate
// the lead spawns with its Agent tool is in status with origin "lead" and its
// pane; the lead's config is teams/session-<first 8 of its session>, the only
// team folder.
func TestLeadSpawnedTeammateIsAdopted(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "e2e-adopt", true, spawning("scout"))
	w.e.MustRun("up", w.teamLayout(spawner("scout"), ""))
	sid := w.teamState().LeadSessionID
	pane := w.waitAdopted("scout", sid)
	w.waitIdentity("after the spawn", sid)
	w.waitScreens("scout's input box with its name", map[string]string{"scout": pane}, func(_, s string) bool {
		rule, ok := inputBox(s)
		return ok && strings.Contains(rule, "@scout")
	})
	if n := len(stallsOf(w.events(), "adopted", "scout")); n != 1 {
		t.Errorf("%d adopted events for scout:\n%s", n, eventLines(w.events()))
	}
}

// TestLeadSpawnedTeammateIsAdoptedBesideLayoutTeammates: the same with
// teammates of the layout running too: they stay "layout", the spawned one is
// "lead", and there is still one team folder.
func TestLeadSpawnedTeammateIsAdoptedBesideLayoutTeammates(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "e2e-adopt-mates", true, spawning("scout"))
	w.e.MustRun("up", w.teamLayout(spawner("scout"), "", member{name: "alice"}))
	sid := w.teamState().LeadSessionID
	w.waitAdopted("scout", sid)
	cfg := w.waitIdentity("after the spawn", sid)
	alice, _ := w.status().member("alice")
	if alice.Origin != "layout" || alice.SessionID == "" || alice.SessionID == sid {
		t.Errorf("alice: %+v, want origin layout with a session of her own", alice)
	}
	for _, m := range cfg.Members {
		if m.Name == "alice" {
			t.Errorf("the lead's config lists alice, whom it did not spawn: %+v", cfg)
		}
	}
}

// TestLeadExitResumesItsTeam: a lead with restart: always that ends with /exit
// (Claude Code then removes its team folder) is relaunched with --resume, keeps
// session-<first 8> and its leadSessionId in one team folder, and a teammate it
// spawns after that is adopted.
func TestLeadExitResumesItsTeam(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "e2e-exit", true, spawning("scout"))
	w.e.MustRun("up", w.teamLayout(lead{prompt: "Say hello; token EXIT-HELLO.", permissionMode: "acceptEdits", restart: "always"}, ""))
	sid := w.teamState().LeadSessionID
	w.waitRequest("the lead's first turn", func(r fakeapi.Request) bool { return r.IsTurn() && r.UserTextContains("EXIT-HELLO") })
	w.waitIdentity("at the start", sid)
	before, _ := w.status().member("lead")

	w.typeInto(before.Pane, "/exit")
	pid, argv := w.waitLeadRestarted(before.PID)
	checkResumed(t, argv, sid)
	w.waitIdentity("after /exit and its restart", sid)

	w.typeInto(w.paneOf("lead"), "Please "+spawnToken("scout")+".")
	w.waitAdopted("scout", sid)
	w.waitIdentity("after the spawn", sid)
	evs := w.events()
	if len(stallsOf(evs, "restart", "lead")) != 1 || len(stallsOf(evs, "config", "")) != 0 || len(stallsOf(evs, "team-moved", "lead")) != 0 {
		t.Errorf("want one restart, no config written by teamctl, no team-moved:\n%s", eventLines(evs))
	}
	if m, _ := w.status().member("lead"); m.PID != pid {
		t.Errorf("the lead is pid %d, restarted as %d", m.PID, pid)
	}
}

// TestLeadExitBesideLayoutTeammatesKeepsTheTeam: the same /exit with a layout
// teammate running: while the lead is down teamctl writes a placeholder
// config.json (the teammate needs one to reach the lead), and the lead, resumed,
// takes it over under the same name: one team, the same leadSessionId.
func TestLeadExitBesideLayoutTeammatesKeepsTheTeam(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "e2e-exit-mates", true, nil)
	w.e.MustRun("up", w.teamLayout(lead{prompt: "Say hello; token EXIT-MATES.", restart: "always"}, "", member{name: "alice"}))
	sid := w.teamState().LeadSessionID
	w.waitRequest("the lead's first turn", func(r fakeapi.Request) bool { return r.IsTurn() && r.UserTextContains("EXIT-MATES") })
	w.waitIdentity("at the start", sid)
	before, _ := w.status().member("lead")

	w.typeInto(before.Pane, "/exit")
	_, argv := w.waitLeadRestarted(before.PID)
	checkResumed(t, argv, sid)
	w.waitIdentity("after /exit and its restart", sid)
	evs := w.events()
	if len(stallsOf(evs, "config", "")) < 1 || len(stallsOf(evs, "team-moved", "lead")) != 0 {
		t.Errorf("want teamctl's placeholder config while the lead was down, no team-moved:\n%s", eventLines(evs))
	}
}

// TestLeadKilledResumesItsTeam: a lead SIGKILLed (its team folder stays, with
// its dead leadProcess) is restarted with --resume and re-claims the same team;
// the teammate it had spawned lives on, adopted; one it spawns after that is
// adopted too. `teamctl restart lead` keeps the team as well.
func TestLeadKilledResumesItsTeam(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "e2e-kill", true, spawning("scout", "scout2"))
	w.e.MustRun("up", w.teamLayout(spawner("scout"), ""))
	sid := w.teamState().LeadSessionID
	scoutPane := w.waitAdopted("scout", sid)
	w.waitIdentity("after the spawn", sid)
	before, _ := w.status().member("lead")
	scout := w.claudeRunning("scout")
	// A teammate the lead spawns works in the lead's folder, as Claude Code
	// records it: the folder its permission rules anchor at (launch.RuleFolder).
	if scout.Cwd == "" || scout.Cwd != before.Cwd {
		t.Errorf("scout works in %q, the lead in %q", scout.Cwd, before.Cwd)
	}

	if err := syscall.Kill(before.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, argv := w.waitLeadRestarted(before.PID)
	checkResumed(t, argv, sid)
	w.waitIdentity("after SIGKILL and its restart", sid)
	if m, ok := w.status().member("scout"); !ok || m.Pane != scoutPane || !proc.Alive(scout.PID) {
		t.Errorf("scout after the lead's restart: %+v (pid %d alive %v)", m, scout.PID, proc.Alive(scout.PID))
	}
	w.typeInto(w.paneOf("lead"), "Please "+spawnToken("scout2")+".")
	w.waitAdopted("scout2", sid)
	w.waitIdentity("after the second spawn", sid)

	now, _ := w.status().member("lead")
	w.e.MustRun("restart", "lead", "--team", w.team)
	_, argv = w.waitLeadRestarted(now.PID)
	checkResumed(t, argv, sid)
	w.waitIdentity("after teamctl restart lead", sid)
	if n := len(stallsOf(w.events(), "team-moved", "lead")); n != 0 {
		t.Errorf("%d team-moved events:\n%s", n, eventLines(w.events()))
	}
}

// TestTeammateResumesItsConversation: a layout teammate starts with a session
// of its own; `teamctl restart` relaunches it with --resume, and what it is
// told next reaches the model with its earlier turns.
func TestTeammateResumesItsConversation(t *testing.T) {
	t.Parallel()
	const first, second = "First task; token MATE-FIRST-2d4b.", "Second task; token MATE-SECOND-8a1f."
	w := newWorld(t, "e2e-mate-resume", true, nil)
	w.e.MustRun("up", w.layout("", member{"alice", first}))
	w.waitRequest("alice's first turn", func(r fakeapi.Request) bool { return r.IsTurn() && r.UserTextContains(first) })
	alice, _ := w.status().member("alice")
	argv, _ := proc.Cmdline(alice.PID)
	if alice.SessionID == "" || flagValue(argv, "--session-id") != alice.SessionID || !slices.Contains(argv, "--agent-name") {
		t.Fatalf("alice %+v runs %q, want --session-id=%s beside the identity flags", alice, argv, alice.SessionID)
	}
	poll(t, wait, "alice's conversation stored", func() (bool, string) {
		m, _ := filepath.Glob(filepath.Join(w.e.ClaudeDir, "projects", "*", alice.SessionID+".jsonl"))
		return len(m) == 1, fmt.Sprint(m)
	})
	w.waitScreens("alice at her input box", map[string]string{"alice": alice.Pane}, func(_, s string) bool { _, ok := inputBox(s); return ok })

	w.e.MustRun("restart", "alice", "--team", w.team)
	poll(t, wait, "alice running again, resumed", func() (bool, string) {
		m, _ := w.status().member("alice")
		argv, _ = proc.Cmdline(m.PID)
		return m.PID != alice.PID && flagValue(argv, "--resume") != "", fmt.Sprintf("%+v %q", m, argv)
	})
	checkResumed(t, argv, alice.SessionID)
	if !slices.Contains(argv, "--agent-name") || !slices.Contains(argv, "alice") {
		t.Errorf("relaunched without its identity: %q", argv)
	}
	w.waitScreens("alice at her input box, as @alice, with her first answer", map[string]string{"alice": w.paneOf("alice")}, func(_, s string) bool {
		rule, ok := inputBox(s)
		return ok && strings.Contains(rule, "@alice")
	})
	w.e.MustRun("send", "alice", second, "--team", w.team)
	r := w.waitRequest("the second task as a turn", func(r fakeapi.Request) bool { return r.IsTurn() && r.UserTextContains(second) })
	if !r.UserTextContains(first) {
		t.Errorf("the turn after the restart does not carry the first one: the conversation was not resumed\n%s", r)
	}
	n := 0
	for _, q := range w.api.Requests() {
		if q.IsTurn() && strings.Contains(q.LastUserText(), first) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("alice's first task was a turn %d times (her prompt handed to her again?)", n)
	}
}

// TestDownThenCleanLeavesNothing: after `down` no Claude Code process of the
// team is left (the lead, a layout teammate, the one the lead spawned), and
// `clean` then leaves no team folder.
func TestDownThenCleanLeavesNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "e2e-clean", true, spawning("scout"))
	w.e.MustRun("up", w.teamLayout(spawner("scout"), "", member{name: "alice"}))
	sid := w.teamState().LeadSessionID
	w.waitAdopted("scout", sid)
	w.waitIdentity("after the spawn", sid)

	w.e.MustRun("down", "--team", w.team)
	poll(t, wait, "no process of the team after down", func() (bool, string) {
		left := processesWithHome(w.e.Home)
		return len(left) == 0, fmt.Sprint(left)
	})
	r := w.e.MustRun("clean", w.team)
	if f := w.teamFolders(); len(f) != 0 {
		t.Errorf("after clean, teams/ holds %q\nclean said:\n%s%s", f, r.Stdout, r.Stderr)
	}
	if ents, _ := os.ReadDir(filepath.Join(w.e.ClaudeDir, "tasks")); len(ents) != 0 {
		t.Errorf("after clean, tasks/ holds %d folders\n%s", len(ents), r.Stdout)
	}
}

// TestRestartedLeadIsWatched: a lead with restart: always and a prompt, beside
// a layout teammate, ends with /exit; the supervisor restarts it with --resume
// and it takes its team back. From then on it is watched as before: status says
// idle while its input box shows, with an idle event after the restart; text
// queued with `teamctl send lead` is typed into it; and the teammate it spawns
// when told to is adopted. (Its watch once kept the old pane's id: the lead
// stayed "running" for good and the queued text was never typed.)
func TestRestartedLeadIsWatched(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "e2e-restart-watch", true, spawning("scout"))
	w.e.MustRun("up", w.teamLayout(lead{prompt: "Say hello; token WATCH-HELLO.", permissionMode: "acceptEdits", restart: "always"}, "500ms", member{name: "alice"}))
	sid := w.teamState().LeadSessionID
	w.waitRequest("the lead's first turn", func(r fakeapi.Request) bool { return r.IsTurn() && r.UserTextContains("WATCH-HELLO") })
	w.waitIdentity("at the start", sid)
	before, _ := w.status().member("lead")

	w.typeInto(before.Pane, "/exit")
	_, argv := w.waitLeadRestarted(before.PID)
	checkResumed(t, argv, sid)
	w.waitIdentity("after /exit and its restart", sid)

	pane := w.paneOf("lead")
	w.waitScreens("the restarted lead's input box", map[string]string{"lead": pane}, func(_, s string) bool { _, ok := inputBox(s); return ok })
	poll(t, wait, "status to say the restarted lead is idle", func() (bool, string) {
		m, _ := w.status().member("lead")
		return m.State == "idle" && m.Pane == pane, fmt.Sprintf("%+v\nscreen:\n%s\nevents:\n%s", m, w.screen(pane), eventLines(w.events()))
	})
	evs := w.events()
	restartAt := -1
	for i, e := range evs {
		if e.Kind == "restart" && e.Member == "lead" {
			restartAt = i
		}
	}
	if restartAt < 0 || len(stallsOf(evs[restartAt:], "idle", "lead")) == 0 {
		t.Errorf("want an idle event for the lead after its restart:\n%s", eventLines(evs))
	}

	w.e.MustRun("send", "lead", "Please "+spawnToken("scout")+".", "--team", w.team)
	w.waitRequest("the queued text as the lead's turn", func(r fakeapi.Request) bool {
		return r.IsTurn() && r.UserTextContains(spawnToken("scout"))
	})
	w.waitAdopted("scout", sid)
	w.waitIdentity("after the spawn", sid)
	if n := len(stallsOf(w.events(), "notify", "lead")); n == 0 {
		t.Errorf("no notify event for the text typed into the lead:\n%s", eventLines(w.events()))
	}
}
