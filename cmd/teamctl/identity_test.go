package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/testenv"
)

// lateClaimLayout is a lead-only layout whose stand-in lead claims its Claude
// Code team only once someone answers its question (as a slow Claude Code
// would claim it late), then spawns teammate scout, which asks the lead for
// permission to run a command (through the lead's inbox).
func lateClaimLayout(e *testenv.Env, team string) string {
	return standInLayout(e, "team.yaml", fmt.Sprintf(`team: %s
watchdog: {quiet: 300ms}
lead:
  env: {TEAMCTL_STANDIN_SCRIPT: "ask:Claim the team? (y/n),claim,spawn:scout:bash:echo scouted,idle"}
`, team))
}

// entries lists the names in dir ("" for none, or no dir).
func entries(dir string) string {
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}

// leadConfig is the part of a Claude Code team config these tests read.
type leadConfig struct {
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

func readLeadConfig(t *testing.T, path string) leadConfig {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the lead's team config: %v", err)
	}
	var c leadConfig
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c
}

// TestSupervisorMakesNothingBeforeTheLeadsConfig: the supervisor of a
// lead-only team starts before the lead has claimed its Claude Code team, and
// creates nothing in teams/ (nor tasks/) until the lead's config.json is there
// — a Claude Code lead that finds its folder made already claims another team.
// Once the lead claims it, the folder is the one named after the lead's
// session, the only one, and the supervisor follows what happens inside it: the
// teammate the lead spawns is adopted, and its permission request, which
// arrives in an inbox folder made after the supervisor started, is seen.
func TestSupervisorMakesNothingBeforeTheLeadsConfig(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", lateClaimLayout(e, "early"))
	// The stall is reported by the supervisor's loop, which runs only after it
	// set up its watches: whatever it makes at start is made by then.
	waitMember(t, e, "early", "lead", 20*time.Second, func(m memberStatus) bool { return m.State == "stalled" })
	if !statusOf(t, e, "early").Supervisor.Running {
		t.Fatal("no supervisor")
	}
	teams, tasks := filepath.Join(e.ClaudeDir, "teams"), filepath.Join(e.ClaudeDir, "tasks")
	if got := entries(teams) + entries(tasks); got != "" {
		t.Fatalf("before the lead claimed its team, teams/ and tasks/ hold %q", got)
	}

	e.MustRun("answer", "lead", "y", "--team", "early")
	scout := waitMember(t, e, "early", "scout", 20*time.Second, func(m memberStatus) bool { return m.State == "waiting-approval" })
	if scout.Origin != "lead" || scout.Pane == "" {
		t.Errorf("scout: %+v, want origin lead with its pane", scout)
	}
	st, _ := readState(t, e, "early")
	want := "session-" + st.LeadSessionID[:8]
	if st.ClaudeTeam != want || entries(teams) != want {
		t.Errorf("state's claude_team %q, teams/ holds %q; want just %s", st.ClaudeTeam, entries(teams), want)
	}
	cfg := readLeadConfig(t, filepath.Join(teams, want, "config.json"))
	if cfg.LeadSessionID != st.LeadSessionID || cfg.LeadProcess == nil || cfg.LeadProcess.PID != member(statusOf(t, e, "early"), "lead").PID {
		t.Errorf("the lead's config: %+v, want leadSessionId %s claimed by the lead", cfg, st.LeadSessionID)
	}
	evs := events(t, e, "early")
	if countEvents(evs, "scout", "adopted") != 1 || countEvents(evs, "scout", "permission-request") != 1 || countEvents(evs, "lead", "team-moved") != 0 {
		t.Errorf("events: %+v", evs)
	}
}

// TestSupervisorFollowsTheTeamTheLeadClaimed: should Claude Code claim a team
// of another name anyway (here because a folder without config.json was in its
// way), the supervisor finds the team the lead's process claimed, records it
// in state, says so with a team-moved event, and follows it: the teammate the
// lead spawns there is adopted, its permission request seen and answered
// through the new team's mailboxes.
func TestSupervisorFollowsTheTeamTheLeadClaimed(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", lateClaimLayout(e, "mover"))
	waitMember(t, e, "mover", "lead", 20*time.Second, func(m memberStatus) bool { return m.State == "stalled" })
	st, _ := readState(t, e, "mover")
	own := "session-" + st.LeadSessionID[:8]
	if err := os.MkdirAll(filepath.Join(e.ClaudeDir, "teams", own, "inboxes"), 0o700); err != nil {
		t.Fatal(err)
	}

	e.MustRun("answer", "lead", "y", "--team", "mover")
	var moved event
	testenv.Eventually(t, 20*time.Second, "a team-moved event", func() (bool, string) {
		evs := events(t, e, "mover")
		for _, ev := range evs {
			if ev.Kind == "team-moved" {
				moved = ev
				return true, ""
			}
		}
		return false, fmt.Sprint(evs)
	})
	st, _ = readState(t, e, "mover")
	if st.ClaudeTeam == own || !strings.Contains(moved.Detail, st.ClaudeTeam) || moved.Member != "lead" {
		t.Fatalf("state's claude_team %q after %+v", st.ClaudeTeam, moved)
	}
	cfg := readLeadConfig(t, filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "config.json"))
	lead := member(statusOf(t, e, "mover"), "lead")
	if cfg.LeadProcess == nil || cfg.LeadProcess.PID != lead.PID {
		t.Errorf("%s's config %+v is not claimed by the lead (pid %d)", st.ClaudeTeam, cfg, lead.PID)
	}
	scout := waitMember(t, e, "mover", "scout", 20*time.Second, func(m memberStatus) bool { return m.State == "waiting-approval" })
	if scout.Origin != "lead" {
		t.Errorf("scout: %+v", scout)
	}
	// Where it runs is on record, as the kernel says: what makes a Claude
	// Code worktree the team's for clean.
	if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", scout.PID)); err != nil || scout.Cwd != cwd {
		t.Errorf("scout's recorded cwd %q, want %q (%v)", scout.Cwd, cwd, err)
	}
	e.MustRun("approve", "scout", "--team", "mover")
	waitScreen(t, e, "teamctl-mover", scout.Pane, "Ran: echo scouted")
	if n := countEvents(events(t, e, "mover"), "lead", "team-moved"); n != 1 {
		t.Errorf("%d team-moved events", n)
	}
}

// TestTeammateRestartResumesItsSession: a layout teammate starts with a
// session of its own (--session-id, recorded in state); restarted once Claude
// Code stored a conversation under it, it resumes it (--resume, the identity
// flags kept) and is not handed its layout prompt again, which that
// conversation has had.
func TestTeammateRestartResumesItsSession(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	const prompt = "Look into the login bug; token RESUME-4c1e."
	e.MustRun("up", standInLayout(e, "team.yaml", fmt.Sprintf("team: resumer\nmembers:\n  - name: mate\n    prompt: %q\n", prompt)))
	st, _ := readState(t, e, "resumer")
	var sid string
	var pid int
	for _, m := range st.Members {
		if m.Name == "mate" {
			sid, pid = m.SessionID, m.PID
		}
	}
	argv, _ := proc.Cmdline(pid)
	if sid == "" || sid == st.LeadSessionID || after(argv, "--session-id") != sid {
		t.Fatalf("mate's session %q (lead's %s), argv %q", sid, st.LeadSessionID, argv)
	}
	inbox := filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "inboxes", "mate.json")
	prompts := func() int {
		b, _ := os.ReadFile(inbox)
		return strings.Count(string(b), "RESUME-4c1e")
	}
	testenv.Eventually(t, 20*time.Second, "the prompt in mate's inbox", func() (bool, string) { return prompts() == 1, fmt.Sprint(prompts()) })
	// What Claude Code leaves once a session has a conversation.
	conv := filepath.Join(e.ClaudeDir, "projects", "-work", sid+".jsonl")
	os.MkdirAll(filepath.Dir(conv), 0o700)
	if err := os.WriteFile(conv, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	e.MustRun("restart", "mate", "--team", "resumer")
	var now []string
	testenv.Eventually(t, 20*time.Second, "mate running again", func() (bool, string) {
		m := member(statusOf(t, e, "resumer"), "mate")
		now, _ = proc.Cmdline(m.PID)
		return m.PID != pid && len(now) > 0, fmt.Sprintf("%+v %q", m, now)
	})
	if after(now, "--resume") != sid || hasFlag(now, "--session-id") || !slices.Contains(now, "--agent-name") {
		t.Errorf("relaunched as %q, want --resume %s with the identity flags", now, sid)
	}
	if n := prompts(); n != 1 {
		t.Errorf("the prompt is in mate's inbox %d times after a restart that resumes", n)
	}
}

// TestUpResumesAnExitedLead: `up` relaunching a lead that exited resumes its
// stored conversation (--resume, no first prompt) rather than starting its
// session again, which Claude Code refuses ("Session ID … is already in use").
func TestUpResumesAnExitedLead(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	layout := standInLayout(e, "team.yaml", `team: again
lead:
  prompt: First prompt.
  restart: never
  env: {TEAMCTL_STANDIN_SCRIPT: "ask:Quit? (y/n),exit:0"}
`)
	e.MustRun("up", layout)
	waitMember(t, e, "again", "lead", 20*time.Second, func(m memberStatus) bool { return m.State == "stalled" })
	st, _ := readState(t, e, "again")
	conv := filepath.Join(e.ClaudeDir, "projects", "-work", st.LeadSessionID+".jsonl")
	os.MkdirAll(filepath.Dir(conv), 0o700)
	if err := os.WriteFile(conv, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.MustRun("answer", "lead", "y", "--team", "again")
	waitMember(t, e, "again", "lead", 20*time.Second, func(m memberStatus) bool { return m.State == "exited" })

	e.MustRun("up", layout)
	out, err := e.Tmux("teamctl-again", "list-panes", "-a", "-F", "#{pane_start_command}")
	if err != nil {
		t.Fatal(err, out)
	}
	if !strings.Contains(out, "--resume="+st.LeadSessionID) || strings.Contains(out, "--session-id") || strings.Contains(out, "First prompt.") {
		t.Errorf("up relaunched the lead as %q, want --resume=%s without its first prompt", out, st.LeadSessionID)
	}
}
