package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/testenv"
)

const hostile = "$(touch PWNED) `touch PWNED2`; echo 'quoted' \"double\" \\ back\nsecond line;"

// TestUpBringsTheWholeTeamUp checks, from the outside, everything `up` promises:
// panes and pids, argv and environment of each member, titles and layout, the
// teammate's prompt in its mailbox, state.json and status --json.
func TestUpBringsTheWholeTeamUp(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	os.MkdirAll(filepath.Join(e.Work, "svc"), 0o700)
	layout := standInLayout(e, "team.yaml", `team: alpha
env:
  TEAM_ONLY: team
  SHARED: from-team
lead:
  model: opus
  permissionMode: manual
  prompt: Coordinate the team.
  env: {LEAD_ONLY: lead}
members:
  - name: researcher
    agentType: general-purpose
    model: sonnet
    color: blue
    permissionMode: acceptEdits
    planModeRequired: true
    cwd: svc
    prompt: Find where sessions expire.
    env: {SHARED: from-member}
  - name: writer
    prompt: Write it up.
  - name: watcher
    command: [sleep, "600"]
`)
	r := e.MustRun("up", layout)
	for _, name := range []string{"lead", "researcher", "writer", "watcher"} {
		if !strings.Contains(r.Stdout, name) {
			t.Errorf("up output does not mention %s:\n%s", name, r.Stdout)
		}
	}

	st, fi := readState(t, e, "alpha")
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("state.json mode %v, want 0600", fi.Mode().Perm())
	}
	if di, _ := os.Stat(filepath.Dir(filepath.Join(e.StateHome, "teamctl", "alpha", "x"))); di.Mode().Perm() != 0o700 {
		t.Errorf("state folder mode %v, want 0700", di.Mode().Perm())
	}
	if st.Socket != "teamctl-alpha" || st.LayoutPath != layout || len(st.LayoutDigest) != 64 {
		t.Errorf("state: socket %q layout %q digest %q", st.Socket, st.LayoutPath, st.LayoutDigest)
	}
	sid := st.LeadSessionID
	claudeTeam := "session-" + sid[:8]
	if st.ClaudeTeam != claudeTeam {
		t.Errorf("claude team %q, want %q", st.ClaudeTeam, claudeTeam)
	}

	// Panes: exactly the four members, with the pids state and status report.
	out, err := e.Tmux("teamctl-alpha", "list-panes", "-a", "-F", "#{pane_id} #{pane_pid} #{pane_title} #{@teamctl-member} #{pane_left} #{pane_top} #{pane_width} #{window_width} #{pane_dead}")
	if err != nil {
		t.Fatal(err, out)
	}
	type pane struct {
		id, title, member               string
		pid, left, top, width, winWidth int
	}
	panes := map[string]pane{}
	for _, ln := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(ln)
		n := func(i int) int { v, _ := strconv.Atoi(f[i]); return v }
		if f[8] != "0" {
			t.Errorf("pane %s is dead", f[0])
		}
		panes[f[3]] = pane{id: f[0], pid: n(1), title: f[2], member: f[3], left: n(4), top: n(5), width: n(6), winWidth: n(7)}
	}
	if len(panes) != 4 {
		t.Fatalf("want 4 panes, got %v", out)
	}
	s := getStatus(t, e, "alpha")
	if s.Team != "alpha" || s.Socket != "teamctl-alpha" || s.Session != "alpha" || len(s.Members) != 4 {
		t.Fatalf("status: %+v", s)
	}
	for _, m := range s.Members {
		p := panes[m.Name]
		if !live(m.State) || m.ExitCode != nil || m.Pane != p.id || m.PID != p.pid || p.title != m.Name {
			t.Errorf("member %s: status %+v, pane %+v", m.Name, m, p)
		}
		if !proc.Alive(m.PID) {
			t.Errorf("member %s: pid %d not alive", m.Name, m.PID)
		}
	}

	// Layout main-vertical: the lead on the left at about 30%, teammates stacked
	// on the right in the layout's order.
	lead := panes["lead"]
	if lead.left != 0 || lead.width < lead.winWidth*25/100 || lead.width > lead.winWidth*35/100 {
		t.Errorf("lead pane at left %d width %d of %d, want the left ~30%%", lead.left, lead.width, lead.winWidth)
	}
	prevTop := -1
	for _, name := range []string{"researcher", "writer", "watcher"} {
		p := panes[name]
		if p.left <= lead.width || p.top <= prevTop {
			t.Errorf("%s at left %d top %d: want right of the lead, below the previous (%d)", name, p.left, p.top, prevTop)
		}
		prevTop = p.top
	}

	// argv, exactly, from /proc.
	argv := func(name string) []string {
		a, err := proc.Cmdline(panes[name].pid)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	// Claude Code's hooks call this teamctl (`teamctl hook`), through --settings.
	hooks := claudecode.HookSettings(claudecode.ShellQuote(e.Bin) + " hook")
	wantLead := []string{e.Bin, "stand-in", "--session-id=" + sid, "--teammate-mode", "tmux", "--model", "opus", "--permission-mode", "manual", "--settings", hooks, "--", "Coordinate the team."}
	if got := argv("lead"); !reflect.DeepEqual(got, wantLead) {
		t.Errorf("lead argv\n got %q\nwant %q", got, wantLead)
	}
	wantRes := []string{e.Bin, "stand-in", "--agent-id", "researcher@" + claudeTeam, "--agent-name", "researcher", "--team-name", claudeTeam,
		"--agent-color", "blue", "--parent-session-id=" + sid, "--session-id=" + claudecode.TeammateSessionID(sid, "researcher"),
		"--plan-mode-required", "--agent-type", "general-purpose", "--model", "sonnet", "--permission-mode", "acceptEdits", "--settings", hooks}
	if got := argv("researcher"); !reflect.DeepEqual(got, wantRes) {
		t.Errorf("researcher argv\n got %q\nwant %q", got, wantRes)
	}
	if got := argv("watcher"); !reflect.DeepEqual(got, []string{"/usr/bin/sleep", "600"}) && !reflect.DeepEqual(got, []string{"/bin/sleep", "600"}) {
		t.Errorf("watcher argv %q", got)
	}

	// Environment, from /proc.
	env := func(name string) map[string]string {
		m, err := proc.Environ(panes[name].pid)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	le := env("lead")
	for k, v := range map[string]string{"TEAM_ONLY": "team", "SHARED": "from-team", "LEAD_ONLY": "lead", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1", "TEAMCTL_TEAM": "alpha", "TEAMCTL_MEMBER": "lead", "HOME": e.Home, "CLAUDE_CONFIG_DIR": e.ClaudeDir} {
		if le[k] != v {
			t.Errorf("lead env %s=%q, want %q", k, le[k], v)
		}
	}
	if _, ok := le["CLAUDECODE"]; ok {
		t.Error("lead has CLAUDECODE set; only teammates get it")
	}
	re := env("researcher")
	for k, v := range map[string]string{"TEAM_ONLY": "team", "SHARED": "from-member", "CLAUDECODE": "1", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1", "TEAMCTL_MEMBER": "researcher"} {
		if re[k] != v {
			t.Errorf("researcher env %s=%q, want %q", k, re[k], v)
		}
	}
	if _, ok := re["LEAD_ONLY"]; ok {
		t.Error("the lead's env leaked into a teammate")
	}
	we := env("watcher")
	if we["TEAM_ONLY"] != "team" || we["CLAUDECODE"] != "" || we["CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS"] != "" {
		t.Errorf("plain process env: TEAM_ONLY=%q CLAUDECODE=%q teams=%q", we["TEAM_ONLY"], we["CLAUDECODE"], we["CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS"])
	}
	if cwd, _ := os.Readlink("/proc/" + strconv.Itoa(panes["researcher"].pid) + "/cwd"); cwd != filepath.Join(e.Work, "svc") {
		t.Errorf("researcher cwd %q", cwd)
	}
	// The session environment carries the team env, for panes the lead opens itself.
	if out, _ := e.Tmux("teamctl-alpha", "show-environment", "-t", "=alpha", "TEAM_ONLY"); strings.TrimSpace(out) != "TEAM_ONLY=team" {
		t.Errorf("session environment: %q", out)
	}

	// The teammate's prompt waits in its mailbox as a message from team-lead,
	// and the stand-in shows it as its first turn.
	inbox := filepath.Join(e.ClaudeDir, "teams", claudeTeam, "inboxes", "researcher.json")
	b, err := os.ReadFile(inbox)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []struct{ From, Text string }
	json.Unmarshal(b, &msgs)
	if len(msgs) != 1 || msgs[0].From != "team-lead" || msgs[0].Text != "Find where sessions expire." {
		t.Errorf("researcher inbox: %s", b)
	}
	waitScreen(t, e, "teamctl-alpha", panes["researcher"].id, "Find where sessions expire.")
	waitScreen(t, e, "teamctl-alpha", panes["researcher"].id, "@researcher")
	if _, err := os.Stat(filepath.Join(e.ClaudeDir, "teams", claudeTeam, "config.json")); err != nil {
		t.Errorf("team config: %v", err)
	}
}

// TestHostilePromptArrivesLiterally: quotes, $(…), backticks, ";" and newlines
// reach the member as they are and run nothing, in argv, env and mailbox.
func TestHostilePromptArrivesLiterally(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	q, _ := json.Marshal(hostile)
	layout := standInLayout(e, "team.yaml", `team: hostile
env:
  TRAILING: "value;"
lead:
  prompt: `+string(q)+`
members:
  - name: mate
    prompt: `+string(q)+`
  - name: tool
    command: [sh, -c, "sleep 600", `+string(q)+`]
`)
	e.MustRun("up", layout)
	s := getStatus(t, e, "hostile")
	byName := map[string]int{}
	for _, m := range s.Members {
		byName[m.Name] = m.PID
	}
	a, _ := proc.Cmdline(byName["lead"])
	if len(a) == 0 || a[len(a)-1] != hostile || a[len(a)-2] != "--" {
		t.Errorf("lead argv tail %q, want the prompt literally after --", a)
	}
	if a, _ := proc.Cmdline(byName["tool"]); len(a) != 4 || a[3] != hostile {
		t.Errorf("tool argv %q", a)
	}
	if env, _ := proc.Environ(byName["lead"]); env["TRAILING"] != "value;" {
		t.Errorf("env value with trailing ';' arrived as %q", env["TRAILING"])
	}
	st, _ := readState(t, e, "hostile")
	b, _ := os.ReadFile(filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "inboxes", "mate.json"))
	var msgs []struct{ Text string }
	json.Unmarshal(b, &msgs)
	if len(msgs) != 1 || msgs[0].Text != hostile {
		t.Errorf("mailbox prompt: %s", b)
	}
	for _, f := range []string{"PWNED", "PWNED2"} {
		if _, err := os.Stat(filepath.Join(e.Work, f)); err == nil {
			t.Errorf("%s exists: the prompt was run by a shell", f)
		}
	}
}

// TestUpIsIdempotent: a second `up` leaves running members alone, starts what
// is missing, relaunches what exited, and restarts a changed member only with
// --recreate.
func TestUpIsIdempotent(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	// two is restarted by nobody but up: the supervisor's own restart (1 s
	// after an exit) could come before a look at status on a loaded machine.
	body := `team: again
members:
  - name: one
  - name: two
    restart: never
`
	layout := standInLayout(e, "team.yaml", body)
	e.MustRun("up", layout)
	first := getStatus(t, e, "again")

	r := e.MustRun("up", layout)
	second := getStatus(t, e, "again")
	// The supervisor may have seen members go idle in between; the team itself
	// (panes, pids, sessions) must be what it was.
	for i := range first.Members {
		first.Members[i].State, second.Members[i].State = "", ""
	}
	if !reflect.DeepEqual(first, second) {
		t.Fatalf("second up changed the team:\n%+v\n%+v", first, second)
	}
	if !strings.Contains(r.Stdout, "already running") {
		t.Errorf("second up does not say members are already running:\n%s", r.Stdout)
	}
	if out, _ := e.Tmux("teamctl-again", "list-panes", "-a"); strings.Count(out, "\n") != 3 {
		t.Fatalf("duplicate panes after a second up:\n%s", out)
	}

	// A member whose program exited is relaunched in a new pane in its place.
	two := second.Members[2]
	syscall.Kill(two.PID, syscall.SIGKILL)
	testenv.Eventually(t, 10*time.Second, "two to show as exited", func() (bool, string) {
		s := getStatus(t, e, "again")
		return s.Members[2].State == "exited", s.Members[2].State
	})
	// A member added to the layout is started; a changed one is only reported.
	standInLayout(e, "team.yaml", body+"  - name: three\n"+"")
	os.WriteFile(layout, []byte(strings.Replace(mustRead(t, layout), "  - name: one\n", "  - name: one\n    model: haiku\n", 1)), 0o600)
	r = e.MustRun("up", layout)
	third := getStatus(t, e, "again")
	if len(third.Members) != 4 {
		t.Fatalf("want 4 members, got %+v", third.Members)
	}
	byName := map[string]int{}
	for i, m := range third.Members {
		byName[m.Name] = i
		if !live(m.State) {
			t.Errorf("%s is %s after up", m.Name, m.State)
		}
	}
	if m := third.Members[byName["two"]]; m.PID == two.PID {
		t.Errorf("two: pid %d; want relaunched", m.PID)
	}
	if out, _ := e.Tmux("teamctl-again", "list-panes", "-a", "-F", "#{pane_id}"); strings.Count(out, "\n") != 4 || strings.Contains(out, two.Pane+"\n") {
		t.Errorf("panes after relaunching two in a new pane in its place and adding three:\n%s", out)
	}
	if m := third.Members[byName["one"]]; m.PID != first.Members[1].PID {
		t.Errorf("changed member restarted without --recreate")
	}
	if !strings.Contains(r.Stdout, "--recreate") {
		t.Errorf("up does not say how to apply the change:\n%s", r.Stdout)
	}
	e.MustRun("up", "--recreate", layout)
	fourth := getStatus(t, e, "again")
	one := fourth.Members[byName["one"]]
	if one.PID == first.Members[1].PID {
		t.Errorf("--recreate: one pid %d pane %s (was %d %s)", one.PID, one.Pane, first.Members[1].PID, first.Members[1].Pane)
	}
	if a, _ := proc.Cmdline(one.PID); !strings.Contains(strings.Join(a, " "), "--model haiku") {
		t.Errorf("recreated argv %q lacks the new model", a)
	}
	if fourth.Members[byName["lead"]].PID != first.Members[0].PID {
		t.Error("--recreate restarted an unchanged member")
	}
}

func mustRead(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDownLeavesNothing: down ends every process (SIGKILL for one that ignores
// SIGTERM), the server and its socket, and records it in state.
func TestDownLeavesNothing(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	layout := standInLayout(e, "team.yaml", `team: gone
members:
  - name: stubborn
    command: [sh, -c, "trap '' TERM; echo STUBBORN-READY; sleep 600"]
  - name: polite
  - name: child
    command: [sh, -c, "sleep 600 & sleep 600; wait"]
  - name: escaper
    command: [sh, -c, "setsid sleep 601 & exec sleep 600"]
`)
	// A process of the user's that only has the team's name exported must survive.
	bystander := exec.Command("sleep", "602")
	bystander.Env = append(os.Environ(), "TEAMCTL_TEAM=gone")
	if err := bystander.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { bystander.Process.Kill(); bystander.Wait() }()
	e.MustRun("up", layout)
	s := getStatus(t, e, "gone")
	waitScreen(t, e, "teamctl-gone", s.Members[1].Pane, "STUBBORN-READY")
	waitScreen(t, e, "teamctl-gone", s.Members[2].Pane, "@polite")
	// What a teamctl command costs on this machine now (it is shared and may be
	// busy): down's bound is its timeouts (about 2.5 s) with room, plus that.
	start := time.Now()
	e.MustRun("status", "--team", "gone")
	bound := 8*time.Second + 10*time.Since(start)
	start = time.Now()
	r := e.MustRun("down", "--team", "gone", "--timeout", "1s")
	// stubborn ignores SIGTERM, so it is killed; on a loaded machine a member
	// that ends at SIGTERM may not get to within the second and is killed too.
	if !strings.Contains(r.Stdout, "(polite approved the shutdown request), ") || !strings.Contains(r.Stderr, "stubborn did not stop within 1s: killed") {
		t.Errorf("down output: %s %s", r.Stdout, r.Stderr)
	}
	// The Claude Code teammate was asked first, in Claude Code's own protocol,
	// and approved its shutdown before anything was signalled.
	st, _ := readState(t, e, "gone")
	lead, _ := os.ReadFile(filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "inboxes", "team-lead.json"))
	if !strings.Contains(string(lead), "shutdown_approved") || !strings.Contains(string(lead), `"from": "polite"`) {
		t.Errorf("no shutdown_approved from polite in the lead's inbox:\n%s", lead)
	}
	if took := time.Since(start); took > bound {
		t.Errorf("down --timeout 1s took %s (bound %s)", took, bound)
	}
	for _, m := range s.Members {
		if proc.GroupAlive(m.PID) {
			t.Errorf("%s (pid %d) still has processes after down", m.Name, m.PID)
		}
	}
	// The escaper's setsid child left the pane's process group; down finds it
	// by the TMUX variable that names this team's socket.
	socket := filepath.Join(e.TmuxTmpDir, "tmux-"+strconv.Itoa(os.Getuid()), "teamctl-gone") + ","
	if left := proc.Matching(func(env map[string]string) bool { return strings.HasPrefix(env["TMUX"], socket) }); len(left) > 0 {
		for _, pid := range left {
			argv, _ := proc.Cmdline(pid)
			st, _ := proc.ReadStat(pid)
			t.Errorf("process of the team left after down: %d %q state %c", pid, argv, st.State)
		}
	}
	if !proc.Alive(bystander.Process.Pid) {
		t.Error("down killed a process that only had TEAMCTL_TEAM in its environment")
	}
	if out, err := e.Tmux("teamctl-gone", "has-session"); err == nil {
		t.Errorf("tmux server still answers: %s", out)
	}
	if _, err := os.Stat(filepath.Join(e.TmuxTmpDir, "tmux-"+strconv.Itoa(os.Getuid()), "teamctl-gone")); err == nil {
		t.Error("socket file left behind")
	}
	st, _ = readState(t, e, "gone")
	if st.StoppedAt == nil {
		t.Error("state does not record the stop")
	}
	after := getStatus(t, e, "gone")
	for _, m := range after.Members {
		if m.State != "exited" {
			t.Errorf("%s: %s after down", m.Name, m.State)
		}
	}
}

// TestDownEndsTheLeadLast: the lead gets SIGTERM only once the others have
// ended, even one that takes its time.
func TestDownEndsTheLeadLast(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	order := filepath.Join(e.Work, "order")
	// The lead is a shell (claude.command) that records its SIGTERM, as is slow,
	// which takes half a second to end after it.
	layout := e.WriteFile("team.yaml", fmt.Sprintf(`team: order
claude:
  command: sh
  args: [-c, "trap 'echo lead >> %[1]s; exit 0' TERM; echo LEAD-READY; sleep 600 & wait", sh]
lead: {}
members:
  - name: slow
    command: [sh, -c, "trap 'sleep 0.5; echo slow >> %[1]s; exit 0' TERM; echo SLOW-READY; sleep 600 & wait"]
`, order))
	e.MustRun("up", layout)
	s := getStatus(t, e, "order")
	waitScreen(t, e, "teamctl-order", s.Members[0].Pane, "LEAD-READY")
	waitScreen(t, e, "teamctl-order", s.Members[1].Pane, "SLOW-READY")
	r := e.MustRun("down", "--team", "order")
	if !strings.Contains(r.Stdout, "2 stopped") {
		t.Errorf("down output: %s %s", r.Stdout, r.Stderr)
	}
	if got := mustRead(t, order); got != "slow\nlead\n" {
		t.Errorf("order of the ends: %q, want slow then lead", got)
	}
}

// TestLayoutSettingsKeepTheHooks: a layout's own --settings (a file in
// claude.args, inline JSON in a member's args) reaches Claude Code merged with
// teamctl's hooks, as its only --settings; one that cannot be read stops
// validate and up, naming the member and the file.
func TestLayoutSettingsKeepTheHooks(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.WriteFile("own.json", `{"model":"haiku","hooks":{"Stop":[{"hooks":[{"type":"command","command":"mine"}]}]}}`)
	layout := e.WriteFile("team.yaml", fmt.Sprintf(`team: merged
claude:
  command: %q
  args: [stand-in, --settings, own.json]
lead: {}
members:
  - name: inline
    args: ['--settings={"theme":"dark"}']
`, e.Bin))
	e.MustRun("up", layout)
	hook := claudecode.ShellQuote(e.Bin) + " hook"
	settings := func(pid int) map[string]any {
		argv, err := proc.Cmdline(pid)
		if err != nil {
			t.Fatal(err)
		}
		var values []string
		for i, a := range argv {
			if a == "--settings" && i+1 < len(argv) {
				values = append(values, argv[i+1])
			} else if strings.HasPrefix(a, "--settings") {
				values = append(values, a)
			}
		}
		if len(values) != 1 {
			t.Fatalf("want one --settings, argv %q", argv)
		}
		var s map[string]any
		if err := json.Unmarshal([]byte(values[0]), &s); err != nil {
			t.Fatalf("--settings %q: %v", values[0], err)
		}
		return s
	}
	stopHooks := func(s map[string]any) string {
		b, _ := json.Marshal(s["hooks"].(map[string]any)["Stop"])
		return string(b)
	}
	s := getStatus(t, e, "merged")
	lead, inline := settings(s.Members[0].PID), settings(s.Members[1].PID)
	if lead["model"] != "haiku" || !strings.Contains(stopHooks(lead), `"mine"`) || !strings.Contains(stopHooks(lead), hook) {
		t.Errorf("lead's settings lost the layout's or teamctl's part: %v", lead)
	}
	if inline["theme"] != "dark" || inline["model"] != nil || !strings.Contains(stopHooks(inline), hook) {
		t.Errorf("inline's settings: %v", inline)
	}

	bad := e.WriteFile("bad.yaml", fmt.Sprintf(`team: unread
claude:
  command: %q
  args: [stand-in]
lead: {}
members:
  - name: lost
    args: [--settings, missing.json]
`, e.Bin))
	want := "lost: --settings file " + filepath.Join(e.Work, "missing.json") + ": read settings file:"
	if r := e.Run("validate", bad); r.Code != 1 || !strings.Contains(r.Stderr, bad+": "+want) {
		t.Errorf("validate: exit %d, stderr %q; want %q", r.Code, r.Stderr, want)
	}
	if r := e.Run("up", bad); r.Code == 0 || !strings.Contains(r.Stderr, want) {
		t.Errorf("up: exit %d, stderr %q; want %q", r.Code, r.Stderr, want)
	}
	if out, err := e.Tmux("teamctl-unread", "has-session"); err == nil {
		t.Errorf("up started a server for a layout it refused: %s", out)
	}
}
