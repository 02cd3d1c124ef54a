package usage

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
)

// copyFile copies a fixture into place, making its folders.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestAgentMembersUsage: `teamctl usage` counts a Codex and a Gemini member
// from their own CLI's records in their homes (a rollout and a chat written
// by the real CLIs against the fakes): each response once, however often
// its CLI wrote it, the tokens the fakes reported, priced where the table
// has the model (Gemini's gemini-3.1-pro-preview) and said "no price" where
// it has not (the fake's gpt-fake); a plain process stays out. A rollout in
// the Gemini member's home counts for nobody (it reads chats), and a record
// reached through a symlink is not read.
func TestAgentMembersUsage(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	st := &state.Team{Team: "mixed", CreatedAt: time.Now().Add(-time.Hour), Members: []state.Member{
		{Name: "coder", Role: state.RoleProcess, Origin: state.OriginLayout, Agent: "codex"},
		{Name: "critic", Role: state.RoleProcess, Origin: state.OriginLayout, Agent: "gemini"},
		{Name: "web", Role: state.RoleProcess, Origin: state.OriginLayout},
	}}
	codexHome, err := state.AgentHome("mixed", "coder", "codex")
	if err != nil {
		t.Fatal(err)
	}
	geminiHome, _ := state.AgentHome("mixed", "critic", "gemini")
	rollout := filepath.Join(codexHome, "sessions", "2026", "12", "05", "rollout-2026-12-05T11-38-42-x.jsonl")
	copyFile(t, "../codexcli/testdata/rollout-0.171.0.jsonl", rollout)
	copyFile(t, "../geminicli/testdata/chat-0.61.0.jsonl", filepath.Join(geminiHome, ".gemini", "tmp", "critic", "chats", "session-a.jsonl"))
	// Not Gemini's: a rollout in its home, and a chat that is a symlink.
	copyFile(t, "../codexcli/testdata/rollout-0.171.0.jsonl", filepath.Join(geminiHome, "sessions", "2026", "12", "05", "rollout-y.jsonl"))
	if err := os.Symlink(rollout, filepath.Join(geminiHome, ".gemini", "tmp", "critic", "chats", "session-b.jsonl")); err != nil {
		t.Fatal(err)
	}

	r, err := ForTeam(st, Options{ClaudeDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Members) != 2 {
		t.Fatalf("members: %+v, want coder and critic", r.Members)
	}
	coder, critic := r.Members[0], r.Members[1]
	if coder.Name != "coder" || coder.Agent != "codex" || coder.Turns != 4 || coder.Input != 54465 || coder.Output != 5 ||
		coder.Cost != 0 || len(coder.NoPrice()) != 1 || coder.NoPrice()[0] != "gpt-fake" {
		t.Errorf("coder: %+v, want 4 turns, 54465 in, 5 out, gpt-fake with no price", coder)
	}
	want := (36637*2.0 + 4*12.0) / 1e6
	if critic.Name != "critic" || critic.Agent != "gemini" || critic.Turns != 3 || critic.Input != 36637 || critic.Output != 4 ||
		math.Abs(critic.Cost-want) > 1e-9 || len(critic.NoPrice()) != 0 {
		t.Errorf("critic: %+v, want 3 turns, 36637 in, 4 out, $%.6f", critic, want)
	}
	if r.Total.Turns != 7 {
		t.Errorf("total: %+v, want 7 turns", r.Total)
	}
	refused := false
	for _, n := range r.Notes {
		refused = refused || strings.Contains(n, "session-b.jsonl")
	}
	if !refused {
		t.Errorf("the symlinked chat is not said refused: %q", r.Notes)
	}
}
