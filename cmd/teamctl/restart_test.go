package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/testenv"
)

// TestRestartByAPersonIsCounted: each `teamctl restart` counts as a restart,
// in one count with the supervisor's: the command, the event and status say
// restart #1, #2 (by a person), and the supervisor's next is #3.
func TestRestartByAPersonIsCounted(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: counted\nlead: {}\nmembers:\n  - name: web\n    command: [sleep, \"1000\"]\n"))
	for n := 1; n <= 2; n++ {
		r := e.MustRun("restart", "web", "--team", "counted")
		if want := fmt.Sprintf(": restart #%d (by a person)\n", n); !strings.HasPrefix(r.Stdout, "restarted web (pid ") || !strings.HasSuffix(r.Stdout, want) {
			t.Errorf("restart %d says %q, want it to end %q", n, r.Stdout, want)
		}
		if m := member(statusOf(t, e, "counted"), "web"); m.Restarts != n {
			t.Errorf("after restart %d, status --json says %d restarts", n, m.Restarts)
		}
	}
	out := e.MustRun("status", "--team", "counted").Stdout
	if !strings.Contains(out, "(2 restarts)") {
		t.Errorf("status does not show 2 restarts:\n%s", out)
	}
	out = e.MustRun("events", "--team", "counted").Stdout
	for _, want := range []string{"restart #1 (by a person) pid ", "restart #2 (by a person) pid "} {
		if !strings.Contains(out, want) {
			t.Errorf("events do not say %q:\n%s", want, out)
		}
	}
	// The supervisor's own restart goes on from there.
	web := member(statusOf(t, e, "counted"), "web")
	syscall.Kill(web.PID, syscall.SIGKILL)
	waitMember(t, e, "counted", "web", time.Minute, func(m memberStatus) bool { return m.Restarts == 3 && m.State == "running" })
	found := false
	for _, ev := range events(t, e, "counted") {
		found = found || (ev.Kind == "restart" && ev.Member == "web" && ev.Restarts == 3 && !strings.Contains(ev.Detail, "person"))
	}
	if !found {
		t.Errorf("no supervisor restart #3: %+v", events(t, e, "counted"))
	}
}

// TestRelaunchEndsTheOldRunFirst: `teamctl restart` and `up --recreate`
// end a running member's program before its new run starts: two runs of one
// member at once fight over what is theirs (a lead relaunched beside its old
// self claimed a Claude Code team under another name). The member here ignores
// SIGHUP, which is all tmux's kill-pane sends, and each run notes any earlier
// run still alive (not a zombie) when it starts.
func TestRelaunchEndsTheOldRunFirst(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	pidfile := filepath.Join(e.Work, "web.pid")
	layout := func(gen string) string {
		return standInLayout(e, "team.yaml", fmt.Sprintf(`team: once
lead: {}
members:
  - name: web
    env: {GEN: %q}
    command: [sh, -c, 'trap "" HUP; for p in $(cat "$0" 2>/dev/null); do s=$(cut -d" " -f3 /proc/$p/stat 2>/dev/null); [ -n "$s" ] && [ "$s" != Z ] && echo "$p" >> "$0.overlap"; done; echo $$ >> "$0"; exec sleep 1000', %q]
`, gen, pidfile))
	}
	e.MustRun("up", layout("1"))
	runs := func() []string {
		b, _ := os.ReadFile(pidfile)
		return strings.Fields(string(b))
	}
	testenv.Eventually(t, time.Minute, "the first run", func() (bool, string) { return len(runs()) == 1, fmt.Sprint(runs()) })
	e.MustRun("restart", "web", "--team", "once")
	testenv.Eventually(t, time.Minute, "the run teamctl restart started", func() (bool, string) { return len(runs()) == 2, fmt.Sprint(runs()) })
	e.MustRun("up", "--recreate", layout("2"))
	testenv.Eventually(t, time.Minute, "the run up --recreate started", func() (bool, string) { return len(runs()) == 3, fmt.Sprint(runs()) })
	if b, err := os.ReadFile(pidfile + ".overlap"); err == nil {
		t.Errorf("a new run of web started while an earlier one (pid %s) still ran", strings.Fields(string(b)))
	}
	for _, p := range runs()[:2] {
		pid, _ := strconv.Atoi(p)
		if pid > 0 && syscall.Kill(pid, 0) == nil {
			t.Errorf("an earlier run of web (pid %d) still runs", pid)
		}
	}
}

// TestRestartOfTheLeadWaitsForClaudeCodesLock: a Claude Code lead started
// while Claude Code's lock on its team's config is fresh claims a team under
// another name; `teamctl restart lead` starts the new lead only once that lock
// is stale for Claude Code (10 s after its mtime, and a margin).
func TestRestartOfTheLeadWaitsForClaudeCodesLock(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: held
lead:
  env: {TEAMCTL_STANDIN_SCRIPT: "claim,idle"}
`))
	st, _ := readState(t, e, "held")
	cfg := filepath.Join(e.ClaudeDir, "teams", "session-"+st.LeadSessionID[:8], "config.json")
	testenv.Eventually(t, time.Minute, "the lead's team config", func() (bool, string) {
		_, err := os.Stat(cfg)
		return err == nil, fmt.Sprint(err)
	})
	// A lock as a lead killed while writing the config leaves it, with 2 s of
	// freshness left.
	if err := os.Mkdir(cfg+".lock", 0o700); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-8 * time.Second)
	if err := os.Chtimes(cfg+".lock", at, at); err != nil {
		t.Fatal(err)
	}
	e.MustRun("restart", "lead", "--team", "held")
	lead := member(statusOf(t, e, "held"), "lead")
	st, _ = readState(t, e, "held")
	for _, m := range st.Members {
		if m.Name == "lead" && m.StartedAt.Before(at.Add(10*time.Second)) {
			t.Errorf("the lead (pid %d) started again at %s, before the lock left at %s was stale", lead.PID, m.StartedAt, at)
		}
	}
}

// TestRenamedSessionIsStillTheTeam: a person renames the team's tmux session;
// `up` again finds the team by its socket and pane ids, starts nothing twice
// and keeps its lead; a supervisor started afterwards watches the renamed
// session (it restarts a killed member); down ends everything.
func TestRenamedSessionIsStillTheTeam(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	layout := standInLayout(e, "team.yaml", `team: renamed
members:
  - name: mate
  - name: web
    command: [sleep, "1000"]
`)
	e.MustRun("up", layout)
	st0, _ := readState(t, e, "renamed")
	before := statusOf(t, e, "renamed")
	if out, err := e.Tmux("teamctl-renamed", "rename-session", "-t", "=renamed", "mine"); err != nil {
		t.Fatalf("rename-session: %v %s", err, out)
	}
	// The supervisor dies too, so the next one must find the renamed session.
	syscall.Kill(before.Supervisor.PID, syscall.SIGKILL)
	testenv.Eventually(t, 10*time.Second, "the supervisor to be gone", func() (bool, string) {
		return !statusOf(t, e, "renamed").Supervisor.Running, ""
	})
	r := e.MustRun("up", layout)
	if !strings.Contains(r.Stdout, "0 started, 0 relaunched, 3 already running") {
		t.Errorf("second up:\n%s", r.Stdout)
	}
	if out, _ := e.Tmux("teamctl-renamed", "list-panes", "-a", "-F", "#{session_name} #{pane_id}"); strings.Count(out, "\n") != 3 || strings.Contains(out, "renamed ") {
		t.Errorf("panes after the second up:\n%s", out)
	}
	st1, _ := readState(t, e, "renamed")
	if st1.LeadSessionID != st0.LeadSessionID {
		t.Errorf("lead session %s, was %s", st1.LeadSessionID, st0.LeadSessionID)
	}
	after := statusOf(t, e, "renamed")
	for i, m := range after.Members {
		if m.PID != before.Members[i].PID || !live(m.State) {
			t.Errorf("%s after the second up: %+v, was %+v", m.Name, m, before.Members[i])
		}
	}
	if !after.Supervisor.Running {
		t.Fatal("no supervisor after the second up")
	}
	web := member(after, "web")
	syscall.Kill(web.PID, syscall.SIGTERM)
	waitMember(t, e, "renamed", "web", 30*time.Second, func(m memberStatus) bool { return m.State == "running" && m.PID != web.PID })
	e.MustRun("down", "--team", "renamed")
	if out, err := e.Tmux("teamctl-renamed", "list-panes", "-a"); err == nil {
		t.Errorf("the team's server survived down:\n%s", out)
	}
}

// TestExitZeroIsNeverAFailure: under restart: on-failure, members that end
// with exit 0 are never restarted and their exit events carry code 0, while a
// member killed by a signal is always restarted. (tmux sometimes never learns a
// dead pane's status; the supervisor then reads it from the zombie.)
func TestExitZeroIsNeverAFailure(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	var b strings.Builder
	b.WriteString("team: zero\nmembers:\n")
	const n = 8
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - name: done%d\n    command: [sh, -c, 'while [ ! -f %s ]; do sleep 0.02; done; exit 0']\n", i, filepath.Join(e.Work, "go"))
	}
	// One closes its terminal (ignoring the SIGHUP that follows) and ends only
	// later: tmux calls its pane dead long before it knows the status.
	fmt.Fprintf(&b, "  - name: done%d\n    command: [sh, -c, 'trap \"\" HUP; exec 0<&- 1>&- 2>&-; sleep 2; exit 0']\n", n)
	b.WriteString("  - name: victim\n    command: [sleep, \"1000\"]\n")
	e.MustRun("up", standInLayout(e, "team.yaml", b.String()))
	victim := member(statusOf(t, e, "zero"), "victim")
	testenv.Eventually(t, 30*time.Second, "the supervisor's start event", func() (bool, string) {
		for _, ev := range events(t, e, "zero") {
			if ev.Kind == "supervisor" && strings.HasPrefix(ev.Detail, "started") {
				return true, ""
			}
		}
		return false, ""
	})
	e.WriteFile("go", "") // all of them exit at once
	syscall.Kill(victim.PID, syscall.SIGKILL)
	testenv.Eventually(t, 60*time.Second, "every exit reported and the victim restarted", func() (bool, string) {
		evs := events(t, e, "zero")
		exits := 0
		for i := 0; i <= n; i++ {
			exits += countEvents(evs, fmt.Sprintf("done%d", i), "exit")
		}
		return exits == n+1 && countEvents(evs, "victim", "restart") == 1, fmt.Sprintf("%d exits: %+v", exits, evs)
	})
	for _, ev := range events(t, e, "zero") {
		if !strings.HasPrefix(ev.Member, "done") {
			continue
		}
		switch ev.Kind {
		case "restart":
			t.Errorf("%s ended with exit 0 and was restarted: %+v", ev.Member, ev)
		case "exit":
			if ev.ExitCode == nil || *ev.ExitCode != 0 {
				t.Errorf("%s: exit event without code 0: %+v", ev.Member, ev)
			}
		}
	}
}

// TestUpTableAgreesWithStatus: up's closing table is status's view (state,
// tmux, the supervisor's knowledge), not "running" for every recorded member:
// a member that exited 7 and was then taken out of the layout is listed as
// exited (7) by the next up, as by status. Every member's started_at is its
// own start, never earlier than its process.
func TestUpTableAgreesWithStatus(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	body := `team: table
lead: {}
members:
  - name: web
    command: [sleep, "1000"]
`
	e.MustRun("up", standInLayout(e, "team.yaml", body+`  - name: bad
    command: [sh, -c, "exit 7"]
    restart: never
`))
	// Its exit is known (tmux may call a pane dead a moment before it knows
	// the status): the supervisor reported it.
	testenv.Eventually(t, 20*time.Second, "bad's exit event", func() (bool, string) {
		for _, ev := range events(t, e, "table") {
			if ev.Member == "bad" && ev.Kind == "exit" && ev.ExitCode != nil && *ev.ExitCode == 7 {
				return true, ""
			}
		}
		return false, ""
	})
	r := e.MustRun("up", standInLayout(e, "team.yaml", body))
	var badLine string
	for _, ln := range strings.Split(r.Stdout, "\n") {
		if strings.HasPrefix(ln, "bad ") {
			badLine = ln
		}
	}
	if !strings.Contains(badLine, "exited (7)") || strings.Contains(badLine, "running") {
		t.Errorf("up's table lists bad as %q:\n%s", badLine, r.Stdout)
	}
	if s := member(statusOf(t, e, "table"), "bad"); s.State != "exited" {
		t.Errorf("status says %+v", s)
	}
	// started_at: each member's own, not before its process began.
	var st struct {
		Members []struct {
			Name      string    `json:"name"`
			PID       int       `json:"pid"`
			State     string    `json:"state"`
			StartedAt time.Time `json:"started_at"`
		} `json:"members"`
	}
	if err := json.Unmarshal([]byte(e.MustRun("status", "--json", "--team", "table").Stdout), &st); err != nil {
		t.Fatal(err)
	}
	for _, m := range st.Members {
		if m.State == "exited" {
			continue
		}
		began, err := processStart(m.PID)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		if m.StartedAt.Before(began.Add(-50 * time.Millisecond)) {
			t.Errorf("%s: started_at %s, but its process began at %s", m.Name, m.StartedAt, began)
		}
	}
}

// processStart is when pid began, from /proc (boot time plus its start in
// clock ticks, 100 a second on Linux).
func processStart(pid int) (time.Time, error) {
	ticks, err := proc.StartTime(pid)
	if err != nil {
		return time.Time{}, err
	}
	n, err := strconv.ParseInt(ticks, 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, err
	}
	for _, ln := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(ln, "btime "); ok {
			boot, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, err
			}
			return time.Unix(boot, 0).Add(time.Duration(n) * 10 * time.Millisecond), nil
		}
	}
	return time.Time{}, fmt.Errorf("no btime in /proc/stat")
}
