package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/fakeapi"
	"github.com/teamctl/teamctl/internal/testenv"
	"github.com/teamctl/teamctl/stallwatch"
)

// The Codex CLI and the Gemini CLI, run in a tmux pane against the fakes
// (internal/fakeapi), checked against what the watchdog decides on their
// screens: their approval dialog is a stall, stallwatch's "no" keys leave
// the command unrun and its "yes" keys run it, and a 429 is a limit. They
// run only when TEAMCTL_E2E_CODEX / TEAMCTL_E2E_GEMINI name the binaries
// (.ci/run installs the pinned ones and sets both).

// agentPane is one CLI running in a pane of its own tmux server.
type agentPane struct {
	t      *testing.T
	e      *testenv.Env
	api    *fakeapi.Server
	socket string
	dir    string // the CLI's working folder
}

// agentBinary returns the binary named by env var, or skips the test.
func agentBinary(t *testing.T, env string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		t.Skipf("set %s to run this test against the real CLI", env)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(abs); err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("%s=%s is not an executable file (%v)", env, p, err)
	}
	return abs
}

// startAgent starts argv in a 120x40 pane with the test's world's
// environment plus env, in a fresh folder, and registers its end: the tmux
// server by its socket, then every process left with the test's HOME (the
// Codex app-server daemon outlives its pane and ignores SIGTERM), by pid.
func startAgent(t *testing.T, script fakeapi.Script, setup func(p *agentPane) (env []string, argv []string)) *agentPane {
	t.Helper()
	api, err := fakeapi.Start(fakeapi.WithLog(t.Logf), fakeapi.WithScript(script))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	e := testenv.New(t)
	p := &agentPane{t: t, e: e, api: api, socket: "agent", dir: filepath.Join(e.Work, "proj")}
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	env, argv := setup(p)
	e.Extra = append(e.Extra, env...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("--- the pane:\n%s", p.screen())
			for _, r := range api.Requests() {
				t.Logf("fake API saw %s", r)
			}
		}
		e.KillServers()
		for _, pr := range processesWithHome(e.Home) {
			syscall.Kill(pr.PID, syscall.SIGKILL)
		}
		reap(t, e.Home)
	})
	args := append([]string{"new-session", "-d", "-x", "120", "-y", "40", "-c", p.dir, "--"}, argv...)
	if out, err := e.Tmux(p.socket, args...); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	return p
}

func (p *agentPane) screen() string {
	out, _ := p.e.Tmux(p.socket, "capture-pane", "-p")
	return out
}

func (p *agentPane) keys(keys ...string) {
	p.t.Helper()
	if out, err := p.e.Tmux(p.socket, append([]string{"send-keys"}, keys...)...); err != nil {
		p.t.Fatalf("send-keys %q: %v %s", keys, err, out)
	}
}

// waitVerdict waits until the watchdog's verdict on the pane is kind (and
// pattern, when not "") and returns the screen it decided on.
func (p *agentPane) waitVerdict(kind stallwatch.Kind, pattern string) string {
	p.t.Helper()
	det := stallwatch.New(stallwatch.DefaultPatterns())
	var screen, last string
	var since time.Time
	testenv.Eventually(p.t, wait, "the pane to be "+kind.String()+" "+pattern+" and quiet", func() (bool, string) {
		screen = p.screen()
		v := det.Check(screen)
		ok := v.Kind == kind && (pattern == "" || v.Pattern == pattern)
		// As the watchdog does, the verdict counts once the screen has been
		// quiet a while: a CLI draws its dialog before it takes keys (Codex
		// 0.171.0 under load let an Escape sent at once go unread).
		if !ok || screen != last {
			last, since = screen, time.Now()
			return false, v.Kind.String() + " " + v.Pattern + "\n" + screen
		}
		return time.Since(since) >= settleQuiet, v.Kind.String() + " " + v.Pattern + " (settling)\n" + screen
	})
	return screen
}

// settleQuiet is how long a screen must stay as it is before its verdict
// counts: the stand-in for the watchdog's quiet period.
const settleQuiet = 500 * time.Millisecond

// prompt types text as both CLIs take it (docs/codex.md, docs/gemini.md):
// the text alone (-l), then, once the pane shows it, Enter — sent again
// while the fake has not seen the prompt (an Enter that arrives with the
// text is taken as part of a paste).
func (p *agentPane) prompt(text string) {
	p.t.Helper()
	p.keys("-l", text)
	testenv.Eventually(p.t, wait, "the typed text in the pane", func() (bool, string) {
		s := p.screen()
		return strings.Contains(s, text), s
	})
	deadline := time.Now().Add(wait)
	for {
		p.keys("Enter")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := p.api.WaitFor(ctx, func(r fakeapi.Request) bool { return r.IsTurn() && r.UserTextContains(text) })
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the prompt %q never reached the fake API: %v", text, err)
		}
	}
}

// answer reads the dialog on screen and sends stallwatch's keys for its
// yes or no.
func (p *agentPane) answer(screen string, yes bool) []string {
	p.t.Helper()
	d, ok := stallwatch.ReadDialog(screen)
	if !ok {
		p.t.Fatalf("no dialog read on:\n%s", screen)
	}
	o, ok := d.No()
	if yes {
		o, ok = d.Yes()
	}
	if !ok {
		p.t.Fatalf("no yes/no (%v) on %q", yes, d.Describe(0))
	}
	keys := d.Keys(o)
	p.keys(keys...)
	return keys
}

// checkApproval runs the shared part: a prompt that makes the model ask
// for `touch <file>`, declined with stallwatch's no (the file never made,
// the pane idle again), then asked again and approved with its yes (the
// command's output back at the fake, the file made).
func checkApproval(p *agentPane, pattern string) {
	t := p.t
	ran := filepath.Join(p.dir, "ran.txt")
	p.prompt("please make the file")
	screen := p.waitVerdict(stallwatch.Stalled, pattern)
	keys := p.answer(screen, false)
	t.Logf("no sent %q", keys)
	if slices.Contains(keys, "Enter") {
		t.Errorf("no sends %q", keys)
	}
	p.waitVerdict(stallwatch.Idle, "")
	if _, err := os.Stat(ran); err == nil {
		t.Fatalf("no ran the command: %s exists", ran)
	}

	p.prompt("please make the file again")
	screen = p.waitVerdict(stallwatch.Stalled, pattern)
	t.Logf("yes sent %q", p.answer(screen, true))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := p.api.WaitFor(ctx, fakeapi.Request.IsToolResult); err != nil {
		t.Fatalf("no tool result after yes: %v", err)
	}
	testenv.Eventually(t, wait, "the command to have run", func() (bool, string) {
		_, err := os.Stat(ran)
		return err == nil, p.screen()
	})
}

// shellScript asks for the command on each prompt that asks for a file,
// answers its output with text, and otherwise says "ok"; the CLIs' side
// requests get "{}" (Gemini 0.61.0 retried its model router five times,
// with back-off, when it got the function call).
func shellScript(call fakeapi.Reply) fakeapi.Script {
	return fakeapi.Rules(
		fakeapi.Rule{When: func(r fakeapi.Request) bool { return !r.IsTurn() }, Reply: fakeapi.Always(fakeapi.Text("{}"))},
		fakeapi.Rule{When: fakeapi.AfterToolResult(), Reply: fakeapi.Always(fakeapi.Text("made it"))},
		fakeapi.Rule{When: fakeapi.LastUserContains("make the file"), Reply: fakeapi.Always(call)},
	)
}

// onTurns answers every turn with rep, and the CLIs' side requests (a
// title, a choice of model) with "{}".
func onTurns(rep fakeapi.Reply) fakeapi.Script {
	return func(r fakeapi.Request) fakeapi.Reply {
		if r.IsTurn() {
			return rep
		}
		return fakeapi.Text("{}")
	}
}

func codexPane(t *testing.T, script fakeapi.Script) *agentPane {
	return codexPaneTrusting(t, script, true)
}

// codexPaneTrusting starts Codex with its config in a CODEX_HOME of the
// test's, the pane's folder trusted in it when trusted is set.
func codexPaneTrusting(t *testing.T, script fakeapi.Script, trusted bool) *agentPane {
	bin := agentBinary(t, "TEAMCTL_E2E_CODEX")
	return startAgent(t, script, func(p *agentPane) ([]string, []string) {
		home := filepath.Join(p.e.Dir, "codex-home")
		if err := os.MkdirAll(home, 0o700); err != nil {
			t.Fatal(err)
		}
		var dirs []string
		if trusted {
			dirs = append(dirs, p.dir)
		} else {
			// 0.171.0 asked about a git repository's folder only.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if out, err := exec.CommandContext(ctx, "git", "init", "-q", p.dir).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
		}
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(p.api.ResponsesConfig("gpt-fake", dirs...)), 0o600); err != nil {
			t.Fatal(err)
		}
		return []string{"CODEX_HOME=" + home, "FAKE_API_KEY=sk-fake", "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost"},
			[]string{bin, "-a", "on-request", "-s", "read-only"}
	})
}

// TestCodexApprovalAnsweredByMeaning: Codex 0.171.0's command approval is
// a stall; stallwatch's no (Esc) leaves the command unrun, its yes (y) runs
// it.
func TestCodexApprovalAnsweredByMeaning(t *testing.T) {
	p := codexPane(t, shellScript(fakeapi.CodexEscalatedShell("touch ran.txt", "Create ran.txt?")))
	p.waitVerdict(stallwatch.Idle, "")
	checkApproval(p, "codex-approval")
}

// TestCodexTrustAnsweredByMeaning: Codex 0.171.0's folder-trust screen is
// a stall; stallwatch's no (Esc) leaves the folder untrusted in its
// config.toml, its yes (Enter on the selected "Trust and continue") trusts
// it and reaches the composer.
func TestCodexTrustAnsweredByMeaning(t *testing.T) {
	for _, yes := range []bool{false, true} {
		t.Run(map[bool]string{false: "no", true: "yes"}[yes], func(t *testing.T) {
			p := codexPaneTrusting(t, nil, false)
			screen := p.waitVerdict(stallwatch.Stalled, "codex-trust")
			t.Logf("sent %q", p.answer(screen, yes))
			config := filepath.Join(p.e.Dir, "codex-home", "config.toml")
			trusted := func() (bool, string) {
				b, _ := os.ReadFile(config)
				return strings.Contains(string(b), `trust_level = "trusted"`), string(b)
			}
			if yes {
				p.waitVerdict(stallwatch.Idle, "")
				testenv.Eventually(t, wait, "the folder trusted in config.toml", trusted)
				return
			}
			testenv.Eventually(t, wait, "the trust screen gone", func() (bool, string) {
				s := p.screen()
				return strings.Contains(s, "Agent command center"), s
			})
			if ok, b := trusted(); ok {
				t.Errorf("no trusted the folder:\n%s", b)
			}
		})
	}
}

// TestCodexUsageLimitIsALimit: the usage_limit_reached 429 is read as a
// limit with its reset time.
func TestCodexUsageLimitIsALimit(t *testing.T) {
	reset := time.Now().Add(90 * time.Minute).Truncate(time.Minute)
	p := codexPane(t, onTurns(fakeapi.CodexUsageLimit(reset)))
	p.waitVerdict(stallwatch.Idle, "")
	p.prompt("hello")
	testenv.Eventually(t, wait, "the usage limit on screen", func() (bool, string) {
		s := p.screen()
		l, ok := stallwatch.ReadLimit(s, time.Now(), time.Local)
		return ok && l.Reset.Equal(reset), s
	})
}

func geminiPane(t *testing.T, script fakeapi.Script) *agentPane {
	bin := agentBinary(t, "TEAMCTL_E2E_GEMINI")
	return startAgent(t, script, func(p *agentPane) ([]string, []string) {
		home := filepath.Join(p.e.Dir, "gemini-home")
		if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
			t.Fatal(err)
		}
		settings := `{"security": {"auth": {"selectedType": "gemini-api-key"}}}`
		if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(settings), 0o600); err != nil {
			t.Fatal(err)
		}
		return []string{"GEMINI_CLI_HOME=" + home, "GEMINI_API_KEY=fake-key", "GOOGLE_GEMINI_BASE_URL=" + p.api.URL,
				"GEMINI_CLI_TRUST_WORKSPACE=true", "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost"},
			// With CI set (as .ci/run sets it) Gemini CLI 0.61.0 does not
			// start its terminal UI: the pane ended at once (docs/gemini.md).
			[]string{"env", "-u", "CI", "-u", "CONTINUOUS_INTEGRATION", bin}
	})
}

// TestGeminiApprovalAnsweredByMeaning: Gemini CLI 0.61.0's "Allow execution
// of [Shell]?" is a stall; stallwatch's no (Esc) leaves the command unrun,
// its yes (the digit of "Allow once") runs it.
func TestGeminiApprovalAnsweredByMeaning(t *testing.T) {
	p := geminiPane(t, shellScript(fakeapi.GeminiShell("touch ran.txt", "make a file")))
	p.waitVerdict(stallwatch.Idle, "")
	checkApproval(p, "gemini-approval")
}

// TestGeminiQuotaIsALimit: a 429 with a long retry delay brings up the
// quota dialog, a stall and a limit with its reset; its no is Stop.
func TestGeminiQuotaIsALimit(t *testing.T) {
	p := geminiPane(t, onTurns(fakeapi.GeminiQuota(2*time.Hour, false)))
	p.waitVerdict(stallwatch.Idle, "")
	p.prompt("hello")
	screen := p.waitVerdict(stallwatch.Stalled, "gemini-quota")
	l, ok := stallwatch.ReadLimit(screen, time.Now(), time.Local)
	if !ok || l.Reset.IsZero() {
		t.Errorf("limit %v %+v", ok, l)
	}
	keys := p.answer(screen, false)
	t.Logf("no sent %q", keys)
	p.waitVerdict(stallwatch.Idle, "")
}
