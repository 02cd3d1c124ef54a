package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/fakeapi"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/testenv"
)

// TestAgentMembersInALayout: a layout's Codex and Gemini members (agent:)
// come up with teamctl up, each in a home of its own made from the user's
// (which stays as it was), asked its prompt; the approval dialog each
// reaches is a stall in teamctl status; teamctl answer MEMBER n leaves the
// command unrun, and y runs it.
func TestAgentMembersInALayout(t *testing.T) {
	for _, kind := range []string{"codex", "gemini"} {
		t.Run(kind, func(t *testing.T) {
			bin := agentBinary(t, map[string]string{"codex": "TEAMCTL_E2E_CODEX", "gemini": "TEAMCTL_E2E_GEMINI"}[kind])
			call := fakeapi.CodexEscalatedShell("touch ran.txt", "Create ran.txt?")
			pattern := "codex-approval"
			if kind == "gemini" {
				call, pattern = fakeapi.GeminiShell("touch ran.txt", "make a file"), "gemini-approval"
			}
			const report = "REPORT-ANSWER 42"
			script := fakeapi.Rules(
				fakeapi.Rule{When: func(r fakeapi.Request) bool { return r.IsTurn() && fakeapi.LastUserContains("report to the lead")(r) },
					Reply: fakeapi.Always(fakeapi.Text(report))},
				fakeapi.Rule{When: func(fakeapi.Request) bool { return true }, Reply: shellScript(call)},
			)
			api, err := fakeapi.Start(fakeapi.WithLog(t.Logf), fakeapi.WithScript(script))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(api.Close)
			e := testenv.New(t)
			userFile, userText, env := agentUser(t, e.Dir, kind, api)
			e.Extra = append(e.Extra, env...)
			for _, d := range []string{"no", "yes"} {
				os.MkdirAll(filepath.Join(e.Work, d), 0o755)
			}
			team := "agents-" + kind
			leadGo := filepath.Join(e.Dir, "lead-go") // the lead's go-ahead to send yes its text
			agentCleanup(t, e, team, "lead", "no", "yes")
			// A mixed team: a Claude Code lead (teamctl's stand-in) and two
			// members of kind.
			layout := e.WriteFile("team.yaml", fmt.Sprintf(`team: %s
claude: {command: %q, args: [stand-in]}
agent: %s
agents:
  %s: {command: %s}
lead: {env: {TEAMCTL_STANDIN_SCRIPT: "wait-for:%s,teamctl:send|yes|please report to the lead", TEAMCTL_STANDIN_RESUME_SCRIPT: idle}}
members:
  - name: no
    cwd: no
    prompt: "please make the file"
  - name: "yes"
    cwd: "yes"
    prompt: "please make the file"
`, team, e.Bin, kind, kind, bin, leadGo))
			var checks []struct {
				Name   string
				OK     bool
				Warn   bool
				Detail string
			}
			json.Unmarshal([]byte(e.Run("doctor", "--json", layout).Stdout), &checks)
			found := false
			for _, c := range checks {
				found = found || c.Name == kind && c.OK && !c.Warn
			}
			if !found {
				t.Errorf("doctor does not find %s at a tested version: %+v", kind, checks)
			}
			e.MustRun("up", layout)

			stalled := func(member string) (bool, string) {
				r := e.Run("status", "--json", "--team", team)
				var st struct {
					Members []struct {
						Name  string
						State string
						Stall *struct{ Pattern string }
					}
				}
				json.Unmarshal([]byte(r.Stdout), &st)
				for _, m := range st.Members {
					if m.Name == member {
						return m.State == "stalled" && m.Stall != nil && m.Stall.Pattern == pattern, r.Stdout
					}
				}
				return false, r.Stdout
			}
			for _, m := range []string{"no", "yes"} {
				testenv.Eventually(t, wait, m+" stalled at its approval", func() (bool, string) { return stalled(m) })
			}
			if r := e.MustRun("status", "--team", team); !strings.Contains(r.Stdout, "lead") {
				t.Errorf("the lead is not in the team's status:\n%s", r.Stdout)
			}
			// no's answered from top (its n, with no selected), yes's with
			// teamctl answer: the same verb behind both.
			topAnswer(t, e, team, "no", "n")
			e.MustRun("answer", "yes", "y", "--team", team)
			testenv.Eventually(t, wait, "yes's command run", func() (bool, string) {
				_, err := os.Stat(filepath.Join(e.Work, "yes", "ran.txt"))
				return err == nil, fmt.Sprint(err)
			})
			testenv.Eventually(t, wait, "no's approval gone", func() (bool, string) {
				ok, s := stalled("no")
				return !ok, s
			})
			if _, err := os.Stat(filepath.Join(e.Work, "no", "ran.txt")); err == nil {
				t.Errorf("n ran the command")
			}
			{
				// Its turn over, the CLI tells teamctl (Codex's notify program,
				// Gemini's AfterAgent hook, from its pane): a Stop hook of
				// yes's, with its last answer.
				yesPane := ""
				for _, m := range readMembers(t, e, team) {
					if m.Name == "yes" {
						yesPane = m.Pane
					}
				}
				testenv.Eventually(t, wait, "yes's turn end told by "+kind, func() (bool, string) {
					r := e.Run("events", "--json", "--team", team)
					ok := false
					for _, l := range strings.Split(r.Stdout, "\n") {
						ok = ok || strings.Contains(l, `"kind":"hook"`) && strings.Contains(l, `"member":"yes"`) &&
							strings.Contains(l, `"pane":"`+yesPane+`"`) && strings.Contains(l, `"detail":"Stop made it"`)
					}
					return ok, r.Stdout
				})
				// status says idle, as for Claude Code (never a plain
				// process's running), and events has yes's idle.
				testenv.Eventually(t, wait, "yes idle after its turn, in status and events", func() (bool, string) {
					idle := false
					for _, m := range readMembers(t, e, team) {
						idle = idle || m.Name == "yes" && m.State == "idle"
					}
					r := e.Run("events", "--json", "--team", team)
					ok := false
					for _, l := range strings.Split(r.Stdout, "\n") {
						ok = ok || strings.Contains(l, `"kind":"idle"`) && strings.Contains(l, `"member":"yes"`)
					}
					return idle && ok, r.Stdout
				})
				r := e.Run("events", "--json", "--team", team)
				var sawStart bool
				for _, l := range strings.Split(r.Stdout, "\n") {
					if !strings.Contains(l, `"kind":"hook"`) || !strings.Contains(l, `"member":"yes"`) {
						continue
					}
					// Codex's own title turn, run beside yes's first turn
					// (answered {}), is no turn end of yes's.
					if strings.Contains(l, `"detail":"Stop {}"`) {
						t.Errorf("Codex's title turn taken for yes's turn end: %s", l)
					}
					sawStart = sawStart || strings.Contains(l, `"pane":"`+yesPane+`"`) && strings.Contains(l, `"detail":"BeforeAgent please make the file"`)
				}
				// Gemini tells of a turn's start too (BeforeAgent).
				if kind == "gemini" && !sawStart {
					t.Errorf("no BeforeAgent hook from yes's pane:\n%s", r.Stdout)
				}
			}
			// teamctl send types into it as it takes text: the text, then
			// Enter once the input line shows it, again while it holds it.
			e.MustRun("send", "yes", "say hello again", "--team", team)
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			if _, err := api.WaitFor(ctx, func(r fakeapi.Request) bool { return r.IsTurn() && r.UserTextContains("say hello again") }); err != nil {
				t.Errorf("what send typed never reached the model: %v", err)
			}
			// The lead sends yes text (its Bash tool runs teamctl send): yes's
			// answer at its turn's end is typed into the lead (a Claude Code
			// lead cannot message it, nor reads its inbox unless it spawned
			// teammates), once.
			if err := os.WriteFile(leadGo, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			typed := func() (int, string) {
				r := e.Run("events", "--json", "--team", team)
				n := 0
				for _, l := range strings.Split(r.Stdout, "\n") {
					if strings.Contains(l, "typed into the lead") && strings.Contains(l, "[yes ("+kind+") answers your teamctl send] "+report) {
						n++
					}
				}
				return n, r.Stdout
			}
			testenv.Eventually(t, wait, "yes's answer to the lead typed into the lead", func() (bool, string) {
				n, s := typed()
				return n == 1, s
			})
			os.Remove(leadGo) // a lead started again (below) asks nothing more
			if b, _ := os.ReadFile(userFile); string(b) != userText {
				t.Errorf("the user's %s changed:\n%s", userFile, b)
			}
			// A reboot (every process of the team SIGKILLed, nothing told),
			// then up: yes resumes its conversation, which the fake sees
			// whole at its next turn.
			rebootTeam(t, e, team, filepath.Join(e.StateHome, "teamctl", team, "agents"))
			if r := e.MustRun("up", layout); !strings.Contains(r.Stdout, "yes") || !strings.Contains(r.Stdout, "resumes its conversation (its "+kind+" session)") {
				t.Errorf("up of the lost team said:\n%s%s", r.Stdout, r.Stderr)
			}
			// Sent at once: send waits for its input line to be drawn
			// (typed while the CLI loads its session, it was lost).
			e.MustRun("send", "yes", "after the loss", "--team", team)
			rctx, rcancel := context.WithTimeout(context.Background(), wait)
			defer rcancel()
			if _, err := api.WaitFor(rctx, func(r fakeapi.Request) bool {
				return r.IsTurn() && r.UserTextContains("after the loss") && r.UserTextContains("please make the file")
			}); err != nil {
				t.Errorf("yes's turn after the loss does not carry its earlier conversation: %v", err)
			}
			// Each member ran in a home of its own under the team's state.
			st := filepath.Join(e.StateHome, "teamctl", team, "agents", "yes", kind)
			if _, err := os.Stat(st); err != nil {
				t.Errorf("yes's own %s home: %v", kind, err)
			}
			// What yes spent is what the fake handed out for its turns (its
			// requests name its folder): in teamctl usage, read from its
			// CLI's own records, and in status, from the supervisor's
			// following of them. The CLI's side requests (Codex's title,
			// Gemini's router) are in no record of its own: not counted.
			yesDir := filepath.Join(e.Work, "yes")
			testenv.Eventually(t, wait, "yes's usage equal to what the fake handed out for its turns", func() (bool, string) {
				var in, out int64
				turns := 0
				for _, r := range api.Requests() {
					if r.IsTurn() && r.Status == 200 && strings.Contains(string(r.RawBody), yesDir) {
						in += int64(r.Usage.Input + r.Usage.CacheRead + r.Usage.CacheWrite5m + r.Usage.CacheWrite1h)
						out += int64(r.Usage.Output)
						turns++
					}
				}
				var rep struct {
					Members []struct {
						Name, Agent                          string
						Turns                                int
						Input, Output, CacheWrite, CacheRead int64 `json:",omitempty"`
					}
				}
				u := e.Run("usage", "yes", "--json", "--team", team)
				json.Unmarshal([]byte(u.Stdout), &rep)
				var st struct {
					Members []struct {
						Name  string
						Usage *struct {
							Turns                                int
							Input, Output, CacheWrite, CacheRead int64
						} `json:"usage"`
					}
				}
				sr := e.Run("status", "--json", "--team", team)
				json.Unmarshal([]byte(sr.Stdout), &st)
				live := false
				for _, m := range st.Members {
					live = live || m.Name == "yes" && m.Usage != nil && m.Usage.Turns == turns && m.Usage.Output == out &&
						m.Usage.Input+m.Usage.CacheRead+m.Usage.CacheWrite == in
				}
				if len(rep.Members) != 1 {
					return false, u.Stdout + u.Stderr
				}
				m := rep.Members[0]
				got := fmt.Sprintf("usage: %s %d turns, %d in, %d out; the fake: %d turns, %d in, %d out; status: %v", m.Agent, m.Turns,
					m.Input+m.CacheRead+m.CacheWrite, m.Output, turns, in, out, live)
				return turns > 0 && m.Agent == kind && m.Turns == turns && m.Input+m.CacheRead+m.CacheWrite == in && m.Output == out && live, got
			})
			// down leaves nothing that runs in a member's home: Codex
			// 0.171.0's app-server daemon outlives its pane (and ignored
			// SIGTERM for 5 s), found by the team's socket in its
			// environment, as every process that left a pane is.
			e.MustRun("down", "--team", team)
			homes := filepath.Join(e.StateHome, "teamctl", team, "agents")
			testenv.Eventually(t, wait, "nothing running in a member's home after down", func() (bool, string) {
				left := processesWithEnvUnder(homes)
				return len(left) == 0, fmt.Sprint(left)
			})
		})
	}
}

// processesWithEnvUnder are the living processes whose environment names a
// folder under dir (CODEX_HOME, GEMINI_CLI_HOME).
func processesWithEnvUnder(dir string) []process {
	var out []process
	ents, _ := os.ReadDir("/proc")
	for _, ent := range ents {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil || pid == os.Getpid() || !proc.Alive(pid) {
			continue
		}
		env, err := proc.Environ(pid)
		if err != nil {
			continue
		}
		for _, k := range []string{"CODEX_HOME", "GEMINI_CLI_HOME"} {
			if strings.HasPrefix(env[k], dir+string(filepath.Separator)) {
				argv, _ := proc.Cmdline(pid)
				out = append(out, process{PID: pid, Argv: argv})
				break
			}
		}
	}
	return out
}

// readMembers are the team's members as status --json has them.
func readMembers(t *testing.T, e *testenv.Env, team string) []struct{ Name, Pane, State string } {
	t.Helper()
	var st struct {
		Members []struct{ Name, Pane, State string }
	}
	r := e.MustRun("status", "--json", "--team", team)
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, r.Stdout)
	}
	return st.Members
}

// rebootTeam does to team what a reboot does: its tmux server, its supervisor,
// its members' processes and whatever runs in its members' homes (Codex's
// daemon) are SIGKILLed by pid, nothing told; its state stays.
func rebootTeam(t *testing.T, e *testenv.Env, team, homes string) {
	t.Helper()
	var st struct {
		Supervisor struct{ PID int }
		Members    []struct{ PID int }
	}
	r := e.MustRun("status", "--json", "--team", team)
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, r.Stdout)
	}
	out, err := e.Tmux("teamctl-"+team, "display-message", "-p", "#{pid}")
	server, _ := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || server <= 0 || st.Supervisor.PID <= 0 {
		t.Fatalf("before the reboot: server %q (%v), supervisor %d", out, err, st.Supervisor.PID)
	}
	pids := []int{st.Supervisor.PID}
	for _, m := range st.Members {
		pids = append(pids, proc.Tree(m.PID)...)
	}
	for _, p := range processesWithEnvUnder(homes) {
		pids = append(pids, p.PID)
	}
	pids = append(pids, server) // the server last, as a reboot gives no SIGHUP
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGKILL)
	}
	testenv.Eventually(t, wait, "every process of the team gone", func() (bool, string) {
		var left []string
		for _, p := range pids {
			if proc.Alive(p) {
				left = append(left, strconv.Itoa(p))
			}
		}
		for _, p := range processesWithEnvUnder(homes) {
			syscall.Kill(p.PID, syscall.SIGKILL)
			left = append(left, p.String())
		}
		return len(left) == 0, strings.Join(left, " ")
	})
}

// TestCodexMemberLimitContinued: a Codex member whose turn meets a usage
// limit (the fake's 429 usage_limit_reached, its reset a minute ahead) is
// limited in status with the reset its banner shows; with limits: {resume:
// true} the supervisor types "continue" into it once the minute shown is
// over (plus the margin), as Codex takes text, and its model answers it.
func TestCodexMemberLimitContinued(t *testing.T) {
	t.Parallel()
	bin := agentBinary(t, "TEAMCTL_E2E_CODEX")
	var mu sync.Mutex
	var reset time.Time
	script := func(r fakeapi.Request) fakeapi.Reply {
		if !r.IsTurn() {
			return fakeapi.Text("{}")
		}
		mu.Lock()
		now := time.Now()
		if reset.IsZero() {
			// One second before a minute ends, at least 8 s ahead: the
			// minute Codex shows ends soon after it.
			reset = now.Truncate(time.Minute).Add(time.Minute - time.Second)
			if reset.Sub(now) < 8*time.Second {
				reset = reset.Add(time.Minute)
			}
		}
		rs := reset
		mu.Unlock()
		if now.Before(rs) {
			return fakeapi.CodexUsageLimit(rs)
		}
		return fakeapi.Text("Continuing after the limit.")
	}
	api, err := fakeapi.Start(fakeapi.WithLog(t.Logf), fakeapi.WithScript(script))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	e := testenv.New(t)
	_, _, env := agentUser(t, e.Dir, "codex", api)
	e.Extra = append(e.Extra, env...)
	const team = "codex-limit"
	agentCleanup(t, e, team, "rev")
	layout := e.WriteFile("team.yaml", fmt.Sprintf(`team: %s
claude: {command: %q, args: [stand-in]}
agents:
  codex: {command: %s}
env: {TZ: UTC}
lead: {}
members:
  - name: rev
    agent: codex
    prompt: "start; token CODEX-LIMIT-FIRST"
watchdog: {quiet: 500ms}
limits: {resume: true, margin: 1s}
`, team, e.Bin, bin))
	e.MustRun("up", layout)
	testenv.Eventually(t, wait, "rev limited, with a reset, in status", func() (bool, string) {
		r := e.Run("status", "--json", "--team", team)
		var st struct {
			Members []struct {
				Name, State string
				Limit       *struct{ Reset time.Time }
			}
		}
		json.Unmarshal([]byte(r.Stdout), &st)
		for _, m := range st.Members {
			if m.Name == "rev" && m.State == "limited" && m.Limit != nil && !m.Limit.Reset.IsZero() {
				mu.Lock()
				want := reset.Truncate(time.Minute)
				mu.Unlock()
				return m.Limit.Reset.Equal(want), fmt.Sprintf("reset %v, want %v", m.Limit.Reset, want)
			}
		}
		return false, r.Stdout
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r, err := api.WaitFor(ctx, func(r fakeapi.Request) bool {
		return r.IsTurn() && r.Status == 200 && fakeapi.LastUserContains("continue")(r)
	})
	if err != nil {
		t.Fatalf("no continuation reached the model: %v", err)
	}
	mu.Lock()
	shownEnd := reset.Truncate(time.Minute).Add(time.Minute)
	mu.Unlock()
	if r.Time.Before(shownEnd) {
		t.Errorf("the continuation came at %v, before the minute shown ended (%v)", r.Time, shownEnd)
	}
	testenv.Eventually(t, wait, "one limit-resume event of rev", func() (bool, string) {
		out := e.Run("events", "--json", "--team", team).Stdout
		n := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, `"kind":"limit-resume"`) && strings.Contains(l, `"member":"rev"`) {
				n++
			}
		}
		return n == 1, out
	})
}

// TestGeminiMemberLimitContinued: a Gemini member whose turn meets a daily
// quota (the fake's 429 RESOURCE_EXHAUSTED, which Gemini CLI does not retry)
// shows its quota dialog: limited in status (not stalled), no reset shown;
// with limits: {resume: true} the supervisor chooses its "Keep trying" at
// the backoff's first try, and the request, sent again, is answered.
func TestGeminiMemberLimitContinued(t *testing.T) {
	t.Parallel()
	bin := agentBinary(t, "TEAMCTL_E2E_GEMINI")
	var mu sync.Mutex
	turns := 0
	script := func(r fakeapi.Request) fakeapi.Reply {
		if !r.IsTurn() {
			return fakeapi.Text("{}")
		}
		mu.Lock()
		turns++
		n := turns
		mu.Unlock()
		if n == 1 {
			return fakeapi.GeminiQuota(0, true)
		}
		return fakeapi.Text("Continuing after the limit.")
	}
	api, err := fakeapi.Start(fakeapi.WithLog(t.Logf), fakeapi.WithScript(script))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	e := testenv.New(t)
	_, _, env := agentUser(t, e.Dir, "gemini", api)
	e.Extra = append(e.Extra, env...)
	const team = "gemini-limit"
	agentCleanup(t, e, team, "critic")
	layout := e.WriteFile("team.yaml", fmt.Sprintf(`team: %s
claude: {command: %q, args: [stand-in]}
agents:
  gemini: {command: %s}
lead: {}
members:
  - name: critic
    agent: gemini
    prompt: "start; token GEMINI-LIMIT-FIRST"
watchdog: {quiet: 500ms}
limits: {resume: true, margin: 1s}
`, team, e.Bin, bin))
	e.MustRun("up", layout)
	testenv.Eventually(t, wait, "critic limited at its quota dialog, in status", func() (bool, string) {
		r := e.Run("status", "--json", "--team", team)
		var st struct {
			Members []struct{ Name, State string }
		}
		json.Unmarshal([]byte(r.Stdout), &st)
		for _, m := range st.Members {
			if m.Name == "critic" {
				return m.State == "limited", r.Stdout
			}
		}
		return false, r.Stdout
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := api.WaitFor(ctx, func(r fakeapi.Request) bool {
		return r.IsTurn() && r.Status == 200 && r.UserTextContains("GEMINI-LIMIT-FIRST")
	}); err != nil {
		t.Fatalf("the refused request was never sent again and answered: %v", err)
	}
	testenv.Eventually(t, wait, "critic's limit-resume, and no stall said", func() (bool, string) {
		out := e.Run("events", "--json", "--team", team).Stdout
		resumes, stalls := 0, 0
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, `"member":"critic"`) {
				if strings.Contains(l, `"kind":"limit-resume"`) {
					resumes++
				}
				if strings.Contains(l, `"kind":"stall"`) {
					stalls++
				}
			}
		}
		return resumes == 1 && stalls == 0, out
	})
}

// topAnswer runs teamctl top in a pane of a tmux server of the test's own,
// selects member (its row, by ↓) once top shows its dialog's keys, types
// key, and waits for top to say what it chose for member.
func topAnswer(t *testing.T, e *testenv.Env, team, member, key string) {
	t.Helper()
	topAnswerRow(t, e, team, member, "choose · y ", key, "for "+member)
}

// agentUser writes, in a folder of its own under dir, a user's own
// configuration of an agent CLI of kind pointed at the fake api (Codex's
// config.toml naming it as the model provider, Gemini CLI's settings.json
// with an API key's auth), and returns that file, what it holds, and the
// environment that names the folder, the key and the fake.
func agentUser(t *testing.T, dir, kind string, api *fakeapi.Server) (file, text string, env []string) {
	t.Helper()
	user := filepath.Join(dir, "user-"+kind)
	switch kind {
	case "codex":
		file, text = filepath.Join(user, "config.toml"), api.ResponsesConfig("gpt-fake")
		env = []string{"CODEX_HOME=" + user, "FAKE_API_KEY=sk-fake"}
	case "gemini":
		file, text = filepath.Join(user, ".gemini", "settings.json"), `{"security": {"auth": {"selectedType": "gemini-api-key"}}}`
		env = []string{"GEMINI_CLI_HOME=" + user, "GEMINI_API_KEY=fake-key", "GOOGLE_GEMINI_BASE_URL=" + api.URL}
	default:
		t.Fatalf("agent %q", kind)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return file, text, append(env, "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
}

// agentCleanup, at the test's end, logs members' panes when it failed, then
// ends the test's tmux servers and whatever runs in its HOME (Codex's
// daemon), and waits for them.
func agentCleanup(t *testing.T, e *testenv.Env, team string, members ...string) {
	t.Cleanup(func() {
		if t.Failed() {
			for _, m := range members {
				r := e.Run("logs", m, "-n", "40", "--team", team)
				t.Logf("--- %s:\n%s%s", m, r.Stdout, r.Stderr)
			}
		}
		e.KillServers()
		for _, pr := range processesWithHome(e.Home) {
			syscall.Kill(pr.PID, syscall.SIGKILL)
		}
		reap(t, e.Home)
	})
}
