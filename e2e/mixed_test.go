package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/teamctl/teamctl/internal/fakeapi"
)

// TestClaudeLeadAsksACodexMember: a mixed team, a real Claude Code lead and
// a real Codex member. Claude Code's SendMessage cannot reach a member it
// did not spawn (docs/claude-code.md), so the lead asks with its Bash tool:
// `teamctl send coder …`, allowed from `teamctl answer`. The text reaches
// Codex's model; Codex's answer, at its turn's end, is typed into the lead
// (its process tree is what tells teamctl the lead asked), and the lead's
// model gets it as a new turn. What the Codex member spent is in usage.
func TestClaudeLeadAsksACodexMember(t *testing.T) {
	t.Parallel()
	codex := agentBinary(t, "TEAMCTL_E2E_CODEX")
	const ask = "Ask the coder for its report; token MIXED-ASK-7c1e."
	const question = "please report to the lead"
	const report = "REPORT-ANSWER 42"
	var bin, team string
	script := func(r fakeapi.Request) fakeapi.Reply {
		if r.Kind == fakeapi.KindResponses { // Codex
			switch {
			case !r.IsTurn():
				return fakeapi.Text("{}") // its title request
			case fakeapi.LastUserContains(question)(r):
				return fakeapi.Text(report)
			}
			return fakeapi.Text("ok")
		}
		switch {
		case r.IsToolResult():
			return fakeapi.Text("Asked the coder; waiting for its answer.")
		case r.IsTurn() && fakeapi.LastUserContains(ask)(r):
			return fakeapi.Bash(fmt.Sprintf("%s send coder '%s' --team %s", bin, question, team), "Ask the coder")
		}
		return fakeapi.Text("Noted.")
	}
	w := newWorld(t, "e2e-mixed", true, script)
	bin, team = w.e.Bin, w.team
	user := filepath.Join(w.e.Dir, "user-codex")
	if err := os.MkdirAll(user, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "config.toml"), []byte(w.api.ResponsesConfig("gpt-fake")), 0o600); err != nil {
		t.Fatal(err)
	}
	w.e.Extra = append(w.e.Extra, "CODEX_HOME="+user, "FAKE_API_KEY=sk-fake", "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
	t.Cleanup(func() {
		w.e.KillServers()
		for _, pr := range processesWithHome(w.e.Home) {
			syscall.Kill(pr.PID, syscall.SIGKILL)
		}
	})
	layout := w.e.WriteFile("team.yaml", fmt.Sprintf(`team: %s
claude: {command: claude}
agents:
  codex: {command: %s}
lead: {name: lead, permissionMode: manual, prompt: %q}
members:
  - name: coder
    agent: codex
`, team, codex, ask))
	w.e.MustRun("up", layout)
	// The lead's Bash tool asks to run teamctl send: allowed by a person.
	lead := w.paneOf("lead")
	w.waitStalled("claude-permission", "lead")
	w.waitScreens("the lead's dialog for teamctl send", map[string]string{"lead": lead}, func(_, s string) bool {
		return strings.Contains(s, "send coder") && strings.Contains(s, "Do you want to proceed?")
	})
	w.answer("lead", lead, "Do you want to proceed?", "y")
	w.waitRequest("the lead's question at Codex's model", func(r fakeapi.Request) bool {
		return r.Kind == fakeapi.KindResponses && r.IsTurn() && fakeapi.LastUserContains(question)(r)
	})
	w.waitRequest("Codex's answer typed into the lead, a new turn of its model", func(r fakeapi.Request) bool {
		return r.Kind == fakeapi.KindMessages && r.IsTurn() && r.UserTextContains("[coder (codex) answers your teamctl send] "+report)
	})
	// What coder spent: its turns, from its own rollout.
	poll(t, wait, "coder's turns in teamctl usage", func() (bool, string) {
		r := w.e.Run("usage", "coder", "--team", team)
		return strings.Contains(r.Stdout, "coder (codex)") && strings.Contains(r.Stdout, "gpt-fake"), r.Stdout + r.Stderr
	})
}
