package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/fakeapi"
)

// TestProbeSendMessage is a probe, not a test (it checks nothing): with
// TEAMCTL_PROBE_SENDMESSAGE=1 a Claude Code lead with a layout teammate that
// is a plain process ("coder", not Claude Code) is made to call its
// SendMessage tool to coder, and the probe logs the tool's input schema as
// Claude Code offers it, the team's config.json before and after, and every
// mailbox: whether Claude Code delivers to a member it did not spawn, which
// is how a Codex or Gemini member would hear from its lead
// (docs/claude-code.md "A lead's SendMessage to a member it did not spawn").
func TestProbeSendMessage(t *testing.T) {
	if os.Getenv("TEAMCTL_PROBE_SENDMESSAGE") == "" {
		t.Skip("probe")
	}
	const token = "SENDMESSAGE-PROBE"
	var schema any
	var teamName string // the lead's team, once its config is there
	script := func(r fakeapi.Request) fakeapi.Reply {
		if tools, ok := r.Body["tools"].([]any); ok && schema == nil {
			for _, tv := range tools {
				if m, ok := tv.(map[string]any); ok && m["name"] == "SendMessage" {
					schema = m["input_schema"]
				}
			}
		}
		switch {
		case r.IsToolResult():
			return fakeapi.Text("sent; waiting")
		case r.IsTurn() && r.UserTextContains(token):
			to := os.Getenv("TEAMCTL_PROBE_TO")
			if to == "" {
				to = "coder"
			}
			to = strings.ReplaceAll(to, "TEAM", teamName)
			return fakeapi.ToolUse("SendMessage", map[string]any{"to": to, "message": "PING from the lead", "summary": "ping"})
		}
		return fakeapi.Text("ok")
	}
	w := newWorld(t, "e2e-sendmsg", true, script)
	layout := w.e.WriteFile("team.yaml", "team: "+w.team+"\nclaude:\n  command: claude\nlead:\n  name: lead\n  permissionMode: manual\nmembers:\n"+
		"  - name: coder\n    command: [sleep, \"600\"]\n")
	w.e.MustRun("up", layout)
	lead := w.paneOf("lead")
	cfgDir := filepath.Join(w.e.ClaudeDir, "teams")
	logFiles := func(when string) {
		filepath.WalkDir(cfgDir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				t.Logf("%s: %s:\n%s", when, strings.TrimPrefix(p, w.e.ClaudeDir), b)
			}
			return nil
		})
	}
	// coder joins the team's config as Claude Code records a teammate of the
	// tmux backend, then the lead is asked to message it.
	var cfgPath string
	poll(t, time.Minute, "the lead's team config", func() (bool, string) {
		m, _ := filepath.Glob(filepath.Join(cfgDir, "*", "config.json"))
		if len(m) == 1 {
			cfgPath = m[0]
		}
		return len(m) == 1, ""
	})
	if os.Getenv("TEAMCTL_PROBE_JOIN") != "" {
		b, _ := os.ReadFile(cfgPath)
		var cfg map[string]any
		json.Unmarshal(b, &cfg)
		name, _ := cfg["name"].(string)
		teamName = name
		cfg["members"] = append(cfg["members"].([]any), map[string]any{
			"agentId": "coder@" + name, "name": "coder", "agentType": "general-purpose", "model": "claude-opus-5-5",
			"color": "blue", "joinedAt": time.Now().UnixMilli(), "tmuxPaneId": w.paneOf("coder"), "cwd": w.e.Work,
			"subscriptions": []any{}, "backendType": "tmux",
		})
		b, _ = json.MarshalIndent(cfg, "", "  ")
		os.WriteFile(cfgPath, b, 0o600)
		if os.Getenv("TEAMCTL_PROBE_JOIN") == "restart" {
			// The lead takes its team over again at its start (the config's
			// members kept): does it then know coder?
			w.e.MustRun("restart", "lead", "--team", w.team)
			lead = w.paneOf("lead")
			w.waitScreens("the restarted lead's input box", map[string]string{"lead": lead}, func(_, s string) bool { _, ok := inputBox(s); return ok })
		}
	}
	logFiles("before")
	w.e.MustRun("send", "lead", "Please "+token+" now", "--team", w.team)
	w.waitRequest("the lead's SendMessage answered", func(r fakeapi.Request) bool { return r.IsToolResult() })
	time.Sleep(2 * time.Second) // a probe: let Claude Code finish its writes before the files are logged
	if b, err := json.MarshalIndent(schema, "", "  "); err == nil {
		t.Logf("SendMessage input_schema:\n%s", b)
	}
	for _, r := range w.api.Requests() {
		if r.IsToolResult() {
			for _, tr := range r.LastUser().ToolResults() {
				t.Logf("tool result: %+v", tr)
			}
		}
	}
	logFiles("after")
	t.Logf("lead's screen:\n%s", w.screen(lead))
}
