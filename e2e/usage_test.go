package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/teamctl/teamctl/internal/fakeapi"
)

// usageScript is the fake model of the usage test: every answer reports a
// usage of its own (known, with both kinds of cache write), the lead spawns
// teammate helper and a subagent in one answer (two tool_use blocks: one
// response written on several lines), helper and the layout teammate alice
// each start a subagent, and subagents answer at once.
func usageScript() fakeapi.Script {
	var mu sync.Mutex
	n := 0
	agent := func(desc, prompt string, name string) fakeapi.Block {
		in := map[string]any{"description": desc, "prompt": prompt}
		if name != "" {
			in["name"] = name
		} else {
			in["subagent_type"] = "general-purpose"
		}
		return fakeapi.Block{Type: "tool_use", Name: "Agent", Input: in}
	}
	with := func(blocks ...fakeapi.Block) func(fakeapi.Request) fakeapi.Reply {
		return func(fakeapi.Request) fakeapi.Reply {
			mu.Lock()
			n++
			u := fakeapi.Usage{Input: 1000 + n, Output: 20 + n, CacheWrite5m: 300 + n, CacheWrite1h: 40 + n, CacheRead: 5000 + n}
			mu.Unlock()
			return fakeapi.Reply{Blocks: blocks, Usage: &u}
		}
	}
	text := func(s string) fakeapi.Block { return fakeapi.Block{Type: "text", Text: s} }
	return fakeapi.Rules(
		fakeapi.Rule{When: fakeapi.AfterToolResult(), Reply: with(text("Done; waiting."))},
		fakeapi.Rule{When: fakeapi.LastUserContains("SUBTASK-"), Reply: with(text("Subtask done."))},
		fakeapi.Rule{When: fakeapi.LastUserContains(spawnToken("helper")), Reply: with(text("Spawning helper and a subagent."),
			agent("Help out", "Look around; token HELPER-TASK.", "helper"),
			agent("Scout", "Scout the code; token SUBTASK-LEAD.", ""))},
		fakeapi.Rule{When: fakeapi.LastUserContains("HELPER-TASK"), Reply: with(agent("Dig", "Dig in; token SUBTASK-HELPER.", ""))},
		fakeapi.Rule{When: fakeapi.LastUserContains("ALICE-TASK"), Reply: with(agent("Dig", "Dig in; token SUBTASK-ALICE.", ""))},
		fakeapi.Rule{Reply: with(text("ok"))},
	)
}

// TestUsageTranscriptsProbe: where Claude Code writes the transcripts of a
// lead, a layout teammate, a teammate the lead spawned, and their subagents.
func TestUsageTranscriptsProbe(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "e2e-usage", true, usageScript())
	layout := w.e.WriteFile("team.yaml", fmt.Sprintf(`team: %s
claude:
  command: claude
lead:
  name: lead
  permissionMode: acceptEdits
  prompt: "Please %s."
members:
  - name: alice
    permissionMode: acceptEdits
    prompt: "Your task; token ALICE-TASK."
`, w.team, spawnToken("helper")))
	w.e.MustRun("up", layout)
	for _, who := range []string{"LEAD", "HELPER", "ALICE"} {
		w.waitRequest("the subagent of "+who, func(r fakeapi.Request) bool { return r.IsTurn() && strings.Contains(r.LastUserText(), "SUBTASK-"+who) })
	}
	// Each subagent runs in the background; its parent shows its end.
	poll(t, wait, "helper adopted", func() (bool, string) { _, ok := w.status().member("helper"); return ok, "" })
	w.waitScreens("every subagent finished", w.panes(), func(_, s string) bool { return strings.Contains(s, `" finished`) })
	poll(t, wait, "every answer in a transcript", func() (bool, string) {
		var all []byte
		filepath.WalkDir(filepath.Join(w.e.ClaudeDir, "projects"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".jsonl") {
				b, _ := os.ReadFile(p)
				all = append(all, b...)
			}
			return nil
		})
		var missing []string
		for _, r := range w.api.Requests() {
			if r.Stream && r.MsgID != "" && !strings.Contains(string(all), `"id":"`+r.MsgID+`"`) {
				missing = append(missing, r.MsgID)
			}
		}
		return len(missing) == 0, fmt.Sprint(missing)
	})
	for _, r := range w.api.Requests() {
		t.Logf("request %s id=%s usage=%+v session=%v agent=%v", r, r.MsgID, r.Usage, r.Header["X-Claude-Code-Session-Id"], r.Header["X-Claude-Code-Agent-Id"])
	}
	t.Logf("status: %+v", w.status())
	keep := os.Getenv("TEAMCTL_PROBE_KEEP")
	filepath.WalkDir(filepath.Join(w.e.ClaudeDir, "projects"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			fi, _ := d.Info()
			t.Logf("transcript file %s (%d bytes)", p, fi.Size())
		}
		return nil
	})
	if keep != "" {
		exec.Command("cp", "-a", filepath.Join(w.e.ClaudeDir, "projects"), keep).Run()
		exec.Command("cp", "-a", filepath.Join(w.e.ClaudeDir, "teams"), keep+"-teams").Run()
	}
}
