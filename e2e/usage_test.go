package e2e

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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

// TestUsageEqualsWhatTheAPIHandedOut: a lead, a layout teammate, a teammate
// the lead spawned and a subagent of each; `teamctl usage --json` gives each
// member exactly the tokens the fake API handed out to its sessions
// (subagents included), each response once though the lead's first is
// written on three lines. What it logs is where the transcripts went
// (docs/claude-code.md, "Transcripts and usage").
func TestUsageEqualsWhatTheAPIHandedOut(t *testing.T) {
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
	// teamctl usage --json: per member, the sum of what the fake handed out
	// to that member's sessions (a request names its session in
	// X-Claude-Code-Session-Id; a subagent's, its parent's), each response
	// once; the team's the sum of all. The team may still be taking turns
	// (idle notifications): compare until both sides agree, with a deadline.
	type tokens struct{ Input, Output, CacheWrite, CacheWrite1h, CacheRead int64 }
	var report struct {
		Members []struct {
			Name         string
			Sessions     []string
			Turns        int
			Input        int64
			Output       int64
			CacheWrite   int64 `json:"cache_write"`
			CacheWrite1h int64 `json:"cache_write_1h"`
			CacheRead    int64 `json:"cache_read"`
		}
	}
	poll(t, wait, "teamctl usage equal to what the fake API handed out", func() (bool, string) {
		before := len(w.api.Requests())
		r := w.e.MustRun("usage", "--json", "--team", w.team)
		if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil {
			return false, err.Error()
		}
		reqs := w.api.Requests()
		if len(reqs) != before {
			return false, "requests still coming"
		}
		var diffs []string
		seen := map[string]bool{}
		for _, m := range report.Members {
			var want tokens
			turns := 0
			for _, q := range reqs {
				sid := q.Header.Get("X-Claude-Code-Session-Id")
				if q.MsgID == "" || !q.Stream || !slices.Contains(m.Sessions, sid) {
					continue
				}
				seen[q.MsgID] = true
				turns++
				want.Input += int64(q.Usage.Input)
				want.Output += int64(q.Usage.Output)
				want.CacheWrite += int64(q.Usage.CacheWrite5m + q.Usage.CacheWrite1h)
				want.CacheWrite1h += int64(q.Usage.CacheWrite1h)
				want.CacheRead += int64(q.Usage.CacheRead)
			}
			got := tokens{m.Input, m.Output, m.CacheWrite, m.CacheWrite1h, m.CacheRead}
			if got != want || m.Turns != turns || turns == 0 {
				diffs = append(diffs, fmt.Sprintf("%s (sessions %v): teamctl %+v in %d turns, the fake handed out %+v in %d", m.Name, m.Sessions, got, m.Turns, want, turns))
			}
		}
		for _, q := range reqs {
			if q.Stream && q.MsgID != "" && !seen[q.MsgID] {
				diffs = append(diffs, fmt.Sprintf("%s (session %s) is no member's", q.MsgID, q.Header.Get("X-Claude-Code-Session-Id")))
			}
		}
		return len(diffs) == 0, strings.Join(diffs, "\n")
	})
	names := []string{}
	for _, m := range report.Members {
		names = append(names, m.Name)
	}
	if !slices.Equal(names, []string{"lead", "alice", "helper"}) {
		t.Errorf("members %v, want lead, alice and helper (the one the lead spawned)", names)
	}
	// The supervisor, following the same transcripts live, has the same
	// figures in status (its COST column, usage in --json) as teamctl usage
	// read at the same time (the team may still be taking turns).
	poll(t, wait, "status's live usage equal to teamctl usage's", func() (bool, string) {
		turns := map[string]int{}
		if err := json.Unmarshal([]byte(w.e.MustRun("usage", "--json", "--team", w.team).Stdout), &report); err != nil {
			return false, err.Error()
		}
		for _, m := range report.Members {
			turns[m.Name] = m.Turns
		}
		var st struct {
			Members []struct {
				Name  string `json:"name"`
				Usage *struct {
					Turns int `json:"turns"`
				} `json:"usage"`
			} `json:"members"`
		}
		r := w.e.MustRun("status", "--json", "--team", w.team)
		if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil {
			return false, err.Error()
		}
		var diffs []string
		for _, m := range st.Members {
			if want, ok := turns[m.Name]; ok && (m.Usage == nil || m.Usage.Turns != want) {
				diffs = append(diffs, fmt.Sprintf("%s: %+v, want %d turns", m.Name, m.Usage, want))
			}
		}
		return len(diffs) == 0, strings.Join(diffs, "; ")
	})
	t.Logf("teamctl usage:\n%s", w.e.MustRun("usage", "--team", w.team).Stdout)
	t.Logf("teamctl status:\n%s", w.e.MustRun("status", "--team", w.team).Stdout)
	for _, r := range w.api.Requests() {
		t.Logf("request %s id=%s usage=%+v session=%v agent=%v", r, r.MsgID, r.Usage, r.Header["X-Claude-Code-Session-Id"], r.Header["X-Claude-Code-Agent-Id"])
	}
	t.Logf("status: %+v", w.status())
	filepath.WalkDir(filepath.Join(w.e.ClaudeDir, "projects"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			fi, _ := d.Info()
			t.Logf("transcript file %s (%d bytes)", p, fi.Size())
		}
		return nil
	})
}
