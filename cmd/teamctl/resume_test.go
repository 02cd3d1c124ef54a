package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/testenv"
)

// conversation leaves what Claude Code keeps of a session once it has a
// conversation (projects/<folder>/<id>.jsonl), which --resume needs.
func conversation(t *testing.T, e *testenv.Env, sid string) {
	t.Helper()
	p := filepath.Join(e.ClaudeDir, "projects", "-work", sid+".jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// reboot does to a team what a reboot does: its tmux server, its supervisor
// and every process of its panes are killed at once (SIGKILL), nothing is
// told, the state folder stays as it was.
func reboot(t *testing.T, e *testenv.Env, team string) {
	t.Helper()
	s := statusOf(t, e, team)
	out, err := e.Tmux("teamctl-"+team, "display-message", "-p", "#{pid}")
	if err != nil {
		t.Fatalf("the server's pid: %v %s", err, out)
	}
	server, _ := strconv.Atoi(strings.TrimSpace(out))
	pids := []int{server, s.Supervisor.PID}
	for _, m := range s.Members {
		pids = append(pids, proc.Tree(m.PID)...)
	}
	for _, p := range pids {
		if p > 0 {
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
	testenv.Eventually(t, time.Minute, "everything of "+team+" gone", func() (bool, string) {
		for _, p := range pids {
			if p > 0 && proc.Alive(p) {
				return false, fmt.Sprintf("pid %d lives", p)
			}
		}
		return true, ""
	})
}

// argvOf is a member's argv as its process has it.
func argvOf(t *testing.T, e *testenv.Env, team, name string) []string {
	t.Helper()
	var argv []string
	testenv.Eventually(t, time.Minute, name+"'s process", func() (bool, string) {
		m := member(statusOf(t, e, team), name)
		argv, _ = proc.Cmdline(m.PID)
		return m.State != "exited" && len(argv) > 0, fmt.Sprintf("%+v", m)
	})
	return argv
}

// after is flag's value in argv, given as --flag=value or as the argument
// after it ("" when absent).
func after(argv []string, flag string) string {
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

// hasFlag reports whether argv has flag, alone or as --flag=value.
func hasFlag(argv []string, flag string) bool {
	return slices.ContainsFunc(argv, func(a string) bool { return a == flag || strings.HasPrefix(a, flag+"=") })
}

func sessionOf(st stateFile, name string) string {
	for _, m := range st.Members {
		if m.Name == name {
			return m.SessionID
		}
	}
	return ""
}

func inboxCount(e *testenv.Env, st stateFile, name, marker string) int {
	b, _ := os.ReadFile(filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "inboxes", name+".json"))
	return strings.Count(string(b), marker)
}

// TestUpResumesALostTeam: a team lost with its server (a reboot) is shown as
// down (lost) with when it was last seen; `up` brings it back with every
// conversation resumed: the lead with --resume and its own session in the same
// Claude Code team, without its first prompt; a teammate with --resume and its
// identity flags, without its prompt again; a teammate whose conversation
// Claude Code never stored starts afresh (said, and given its prompt again);
// a plain process as it was; a worktree with its uncommitted work.
func TestUpResumesALostTeam(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	repo := gitRepo(t, e, "repo")
	layout := standInLayout(e, "team.yaml", fmt.Sprintf(`team: back
root: %s
lead:
  prompt: LEAD-FIRST-7f3
members:
  - name: mate
    prompt: MATE-FIRST-7f3
    worktree: true
  - name: newbie
    prompt: NEWBIE-FIRST-7f3
  - name: web
    command: [sleep, "1000"]
`, repo))
	e.MustRun("up", layout)
	before, _ := readState(t, e, "back")
	lead, mate, newbie := before.LeadSessionID, sessionOf(before, "mate"), sessionOf(before, "newbie")
	if lead == "" || mate == "" || newbie == "" {
		t.Fatalf("sessions: %+v", before.Members)
	}
	testenv.Eventually(t, time.Minute, "the teammates' prompts in their inboxes", func() (bool, string) {
		return inboxCount(e, before, "mate", "MATE-FIRST-7f3") == 1 && inboxCount(e, before, "newbie", "NEWBIE-FIRST-7f3") == 1, ""
	})
	conversation(t, e, lead)
	conversation(t, e, mate)
	var mateCwd string
	for _, m := range getStatus(t, e, "back").Members {
		if m.Name == "mate" {
			mateCwd = m.Cwd
		}
	}
	work := filepath.Join(mateCwd, "WIP.txt")
	if err := os.WriteFile(work, []byte("half done\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	reboot(t, e, "back")
	r := e.MustRun("status", "--team", "back")
	if !strings.Contains(r.Stdout, "down (lost: last seen ") {
		t.Errorf("status of a lost team:\n%s", r.Stdout)
	}
	var js struct {
		Lost     bool       `json:"lost"`
		LastSeen *time.Time `json:"last_seen"`
	}
	json.Unmarshal([]byte(e.MustRun("status", "--json", "--team", "back").Stdout), &js)
	if !js.Lost || js.LastSeen == nil || time.Since(*js.LastSeen) > 10*time.Minute {
		t.Errorf("status --json: lost %v, last seen %v", js.Lost, js.LastSeen)
	}
	if r := e.MustRun("teams"); !strings.Contains(r.Stdout, "down (lost") {
		t.Errorf("teams:\n%s", r.Stdout)
	}

	r = e.MustRun("up", layout)
	if !strings.Contains(r.Stdout, "resumed: lead, mate; started afresh: newbie") {
		t.Errorf("up:\n%s", r.Stdout)
	}
	now, _ := readState(t, e, "back")
	if now.LeadSessionID != lead || now.ClaudeTeam != before.ClaudeTeam || sessionOf(now, "mate") != mate {
		t.Errorf("sessions now: lead %s team %s mate %s; were %s %s %s", now.LeadSessionID, now.ClaudeTeam, sessionOf(now, "mate"), lead, before.ClaudeTeam, mate)
	}
	la := argvOf(t, e, "back", "lead")
	if after(la, "--resume") != lead || hasFlag(la, "--session-id") || slices.Contains(la, "LEAD-FIRST-7f3") {
		t.Errorf("the lead runs %q, want --resume %s and no first prompt", la, lead)
	}
	ma := argvOf(t, e, "back", "mate")
	if after(ma, "--resume") != mate || after(ma, "--agent-name") != "mate" || after(ma, "--team-name") != before.ClaudeTeam || after(ma, "--parent-session-id") != lead {
		t.Errorf("mate runs %q, want --resume %s with its identity flags", ma, mate)
	}
	na := argvOf(t, e, "back", "newbie")
	if after(na, "--session-id") != newbie || hasFlag(na, "--resume") {
		t.Errorf("newbie runs %q, want a fresh start under --session-id %s", na, newbie)
	}
	if n := inboxCount(e, now, "mate", "MATE-FIRST-7f3"); n != 1 {
		t.Errorf("mate's prompt is in its inbox %d times: a resumed conversation has had it", n)
	}
	testenv.Eventually(t, time.Minute, "newbie's prompt again", func() (bool, string) {
		n := inboxCount(e, now, "newbie", "NEWBIE-FIRST-7f3")
		return n == 2, fmt.Sprint(n)
	})
	if m := member(statusOf(t, e, "back"), "web"); m.State != "running" {
		t.Errorf("web: %+v", m)
	}
	if b, err := os.ReadFile(work); err != nil || string(b) != "half done\n" {
		t.Errorf("the worktree's uncommitted work: %q %v", b, err)
	}
	for _, m := range getStatus(t, e, "back").Members {
		if m.Name == "mate" && m.Cwd != mateCwd {
			t.Errorf("mate works in %s, was %s", m.Cwd, mateCwd)
		}
	}
	resumes := map[string]string{}
	for _, ev := range events(t, e, "back") {
		if ev.Kind == "resume" {
			resumes[ev.Member] = ev.Detail
		}
	}
	if !strings.Contains(resumes["lead"], "resumes") || !strings.Contains(resumes["mate"], "resumes") || !strings.Contains(resumes["newbie"], "afresh") {
		t.Errorf("resume events: %v", resumes)
	}
}

// TestResumeKeepsWhatWasPending: what was pending when the team was lost is
// still there after `up` brings it back: a teammate's unanswered permission
// request is shown again (waiting-approval), text `send` queued for the busy
// lead is typed once the resumed lead is idle; a teammate the lead had
// spawned is reported lost and left to the lead.
func TestResumeKeepsWhatWasPending(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	layout := standInLayout(e, "team.yaml", `team: pending
lead:
  env: {TEAMCTL_STANDIN_SCRIPT: "spawn:scout:busy,busy", TEAMCTL_STANDIN_RESUME_SCRIPT: "idle"}
members:
  - name: mate
    env: {TEAMCTL_STANDIN_SCRIPT: "bash:echo PENDING-3b1", TEAMCTL_STANDIN_RESUME_SCRIPT: "idle"}
`)
	e.MustRun("up", layout)
	waitMember(t, e, "pending", "scout", time.Minute, func(m memberStatus) bool { return m.Origin == "lead" && live(m.State) })
	waitMember(t, e, "pending", "mate", time.Minute, func(m memberStatus) bool { return m.State == "waiting-approval" })
	st, _ := readState(t, e, "pending")
	conversation(t, e, st.LeadSessionID)
	conversation(t, e, sessionOf(st, "mate"))
	if r := e.MustRun("send", "lead", "QUEUED-9d2", "--team", "pending"); !strings.Contains(r.Stdout, "queued") {
		t.Fatalf("send: %s", r.Stdout)
	}

	reboot(t, e, "pending")
	r := e.MustRun("up", layout)
	if !strings.Contains(r.Stdout, "lost (the lead's to spawn again): scout") {
		t.Errorf("up:\n%s", r.Stdout)
	}
	if n := countEvents(events(t, e, "pending"), "scout", "lost"); n != 1 {
		t.Errorf("%d lost events for scout", n)
	}
	waitMember(t, e, "pending", "mate", time.Minute, func(m memberStatus) bool { return m.State == "waiting-approval" })
	var full struct {
		Members []struct {
			Name    string `json:"name"`
			Request *struct {
				Tool  string `json:"tool"`
				Input string `json:"input"`
			} `json:"request"`
		} `json:"members"`
	}
	json.Unmarshal([]byte(e.MustRun("status", "--json", "--team", "pending").Stdout), &full)
	for _, fm := range full.Members {
		if fm.Name == "mate" && (fm.Request == nil || fm.Request.Tool != "Bash" || !strings.Contains(fm.Request.Input, "PENDING-3b1")) {
			t.Errorf("mate's request after the resume: %+v", fm.Request)
		}
	}
	testenv.Eventually(t, time.Minute, "the queued text typed into the resumed lead", func() (bool, string) {
		for _, ev := range events(t, e, "pending") {
			if ev.Kind == "notify" && ev.Member == "lead" && strings.Contains(ev.Detail, "QUEUED-9d2") {
				return true, ""
			}
		}
		return false, ""
	})
	if st2, _ := readState(t, e, "pending"); st2.LeadSessionID != st.LeadSessionID {
		t.Errorf("the lead's session changed: %s, was %s", st2.LeadSessionID, st.LeadSessionID)
	}
}

// TestUpFreshAndUpAll: `up --fresh` starts a lost team anew (new sessions),
// keeping the old Claude Code team on record for clean; `up --all` brings back
// every lost team, each from its own layout, and leaves the others alone.
func TestUpFreshAndUpAll(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	one := standInLayout(e, "one.yaml", "team: one\nmembers:\n  - name: mate\n")
	two := standInLayout(e, "two.yaml", "team: two\nmembers:\n  - name: mate\n")
	three := standInLayout(e, "three.yaml", "team: three\nlead: {}\nmembers:\n  - name: web\n    command: [sleep, \"1000\"]\n")
	for _, l := range []string{one, two, three} {
		e.MustRun("up", l)
	}
	st1, _ := readState(t, e, "one")
	st2, _ := readState(t, e, "two")
	conversation(t, e, st2.LeadSessionID)
	reboot(t, e, "one")
	reboot(t, e, "two")
	web := member(statusOf(t, e, "three"), "web")

	r := e.MustRun("up", "--all")
	if !strings.Contains(r.Stdout, "== one") || !strings.Contains(r.Stdout, "== two") || strings.Contains(r.Stdout, "== three") {
		t.Errorf("up --all:\n%s", r.Stdout)
	}
	for _, team := range []string{"one", "two"} {
		s := statusOf(t, e, team)
		if !s.Supervisor.Running || len(s.Members) != 2 || !live(member(s, "lead").State) || !live(member(s, "mate").State) {
			t.Errorf("%s after up --all: %+v", team, s)
		}
	}
	if now := member(statusOf(t, e, "three"), "web"); now.PID != web.PID {
		t.Errorf("up --all touched a team that was not lost: web %d, was %d", now.PID, web.PID)
	}
	now2, _ := readState(t, e, "two")
	if argv := argvOf(t, e, "two", "lead"); now2.LeadSessionID != st2.LeadSessionID || after(argv, "--resume") != st2.LeadSessionID {
		t.Errorf("two's lead: session %s argv %q, want --resume %s", now2.LeadSessionID, argv, st2.LeadSessionID)
	}

	reboot(t, e, "one")
	e.MustRun("up", one, "--fresh")
	now, _ := readState(t, e, "one")
	if now.LeadSessionID == st1.LeadSessionID || now.ClaudeTeam == st1.ClaudeTeam {
		t.Errorf("--fresh kept the lead's session %s", now.LeadSessionID)
	}
	raw, _ := os.ReadFile(filepath.Join(e.StateHome, "teamctl", "one", "state.json"))
	if !strings.Contains(string(raw), `"earlier"`) || !strings.Contains(string(raw), st1.ClaudeTeam) {
		t.Errorf("the old Claude Code team is not on record:\n%s", raw)
	}
	if argv := argvOf(t, e, "one", "lead"); after(argv, "--session-id") != now.LeadSessionID {
		t.Errorf("one's lead after --fresh runs %q", argv)
	}
	if r := e.Run("up", "--all", one); r.Code != 2 {
		t.Errorf("up --all LAYOUT: exit %d", r.Code)
	}
}
