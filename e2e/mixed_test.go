package e2e

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/fakeapi"
)

// TestClaudeLeadAsksCodexAndGeminiMembers: a mixed team, a real Claude Code lead, a
// real Codex member and a real Gemini CLI member. Claude Code's SendMessage
// cannot reach a member it did not spawn (docs/claude-code.md), so the lead
// asks each with its Bash tool: `teamctl send coder …`, then `teamctl send
// critic …`, each allowed from `teamctl answer`. Each text reaches its
// CLI's model; each answer, at its turn's end, is typed into the lead (its
// process tree is what tells teamctl the lead asked), and the lead's model
// gets it as a new turn. What each member spent is in usage.
func TestClaudeLeadAsksCodexAndGeminiMembers(t *testing.T) {
	t.Parallel()
	codex := agentBinary(t, "TEAMCTL_E2E_CODEX")
	gemini := agentBinary(t, "TEAMCTL_E2E_GEMINI")
	const ask = "Ask the coder for its report; token MIXED-ASK-7c1e."
	const question = "please report to the lead"
	const report = "REPORT-ANSWER 42"
	var bin, team string
	const critique = "CRITIQUE-ANSWER 7"
	script := func(r fakeapi.Request) fakeapi.Reply {
		if r.Kind == fakeapi.KindResponses || r.Kind == fakeapi.KindGemini { // Codex, Gemini CLI
			switch {
			case !r.IsTurn():
				return fakeapi.Text("{}") // their side requests
			case fakeapi.LastUserContains(question)(r) && r.Kind == fakeapi.KindResponses:
				return fakeapi.Text(report)
			case fakeapi.LastUserContains(question)(r):
				return fakeapi.Text(critique)
			}
			return fakeapi.Text("ok")
		}
		send := func(who string) fakeapi.Reply {
			return fakeapi.Bash(fmt.Sprintf("%s send %s '%s' --team %s", bin, who, question, team), "Ask "+who)
		}
		switch {
		case r.IsToolResult() && strings.Contains(string(r.RawBody), "send critic"):
			return fakeapi.Text("Asked both; waiting for their answers.")
		case r.IsToolResult():
			return send("critic")
		case r.IsTurn() && fakeapi.LastUserContains(ask)(r):
			return send("coder")
		}
		return fakeapi.Text("Noted.")
	}
	w := newWorld(t, "e2e-mixed", true, script)
	bin, team = w.e.Bin, w.team
	for _, kind := range []string{"codex", "gemini"} {
		_, _, env := agentUser(t, w.e.Dir, kind, w.api)
		w.e.Extra = append(w.e.Extra, env...)
	}
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
  gemini: {command: %s}
lead: {name: lead, permissionMode: manual, prompt: %q}
members:
  - name: coder
    agent: codex
  - name: critic
    agent: gemini
`, team, codex, gemini, ask))
	w.e.MustRun("up", layout)
	// The lead's Bash tool asks to run teamctl send, for each: allowed by a
	// person.
	lead := w.paneOf("lead")
	// dialogFor is whom the dialog on the lead's screen would send to ("").
	dialogFor := func(screen string) string {
		i := strings.LastIndex(screen, "Do you want to proceed?")
		if i < 0 {
			return ""
		}
		j := strings.LastIndex(screen[:i], " send ")
		if j < 0 {
			return ""
		}
		f := strings.Fields(screen[j+len(" send "):])
		if len(f) == 0 {
			return ""
		}
		return f[0]
	}
	for _, who := range []string{"coder", "critic"} {
		// Answered once its dialog shows and the supervisor says the lead
		// is stalled (two dialogs one after the other may be one stall to
		// it, or a moment of work between them: answer refuses a lead that
		// is not stalled, and is tried again); again if the keys had no
		// effect in 5 s (Claude Code dropped them).
		var sent time.Time
		poll(t, wait, "the lead's dialog for teamctl send "+who+" answered y", func() (bool, string) {
			s := w.screen(lead)
			on := dialogFor(s) == who
			if !sent.IsZero() && !on {
				return true, ""
			}
			if on && (sent.IsZero() || time.Since(sent) > 5*time.Second) {
				if r := w.e.Run("answer", "--team", team, "lead", "y"); r.Code == 0 {
					sent = time.Now()
				}
			}
			return false, s
		})
	}
	for _, x := range []struct{ who, kind, cli, answer string }{
		{"coder", "codex", fakeapi.KindResponses, report}, {"critic", "gemini", fakeapi.KindGemini, critique},
	} {
		w.waitRequest("the lead's question at "+x.who+"'s model", func(r fakeapi.Request) bool {
			return r.Kind == x.cli && r.IsTurn() && fakeapi.LastUserContains(question)(r)
		})
		w.waitRequest(x.who+"'s answer typed into the lead, a new turn of its model", func(r fakeapi.Request) bool {
			return r.Kind == fakeapi.KindMessages && r.IsTurn() && r.UserTextContains("["+x.who+" ("+x.kind+") answers your teamctl send] "+x.answer)
		})
	}
	// What each spent: its turns, from its CLI's own records.
	poll(t, wait, "coder's and critic's turns in teamctl usage", func() (bool, string) {
		r := w.e.Run("usage", "--team", team)
		return strings.Contains(r.Stdout, "coder (codex)") && strings.Contains(r.Stdout, "gpt-fake") &&
			strings.Contains(r.Stdout, "critic (gemini)"), r.Stdout + r.Stderr
	})
}
