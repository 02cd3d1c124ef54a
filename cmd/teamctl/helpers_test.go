package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// status mirrors `teamctl status --json`.
type status struct {
	Team    string `json:"team"`
	Socket  string `json:"socket"`
	Session string `json:"session"`
	Members []struct {
		Name      string `json:"name"`
		Role      string `json:"role"`
		Pane      string `json:"pane"`
		PID       int    `json:"pid"`
		State     string `json:"state"`
		ExitCode  *int   `json:"exit_code"`
		Cwd       string `json:"cwd"`
		SessionID string `json:"session_id"`
		Restarts  int    `json:"restarts"`
	} `json:"members"`
}

func getStatus(t *testing.T, e *testenv.Env, team string) status {
	t.Helper()
	r := e.MustRun("status", "--json", "--team", team)
	var s status
	if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
		t.Fatalf("status --json: %v\n%s", err, r.Stdout)
	}
	return s
}

// standInLayout writes a layout whose Claude Code is teamctl's stand-in.
func standInLayout(e *testenv.Env, name, body string) string {
	head := fmt.Sprintf("claude:\n  command: %q\n  args: [stand-in]\n", e.Bin)
	return e.WriteFile(name, head+body)
}

// screen returns a pane's visible text.
func screen(e *testenv.Env, socket, pane string) string {
	out, _ := e.Tmux(socket, "capture-pane", "-p", "-J", "-t", pane)
	return out
}

func waitScreen(t *testing.T, e *testenv.Env, socket, pane, want string) {
	t.Helper()
	testenv.Eventually(t, 15*time.Second, fmt.Sprintf("%q on pane %s", want, pane), func() (bool, string) {
		s := screen(e, socket, pane)
		return strings.Contains(s, want), s
	})
}

type stateFile struct {
	Team          string     `json:"team"`
	LayoutPath    string     `json:"layout_path"`
	LayoutDigest  string     `json:"layout_digest"`
	Socket        string     `json:"socket"`
	ClaudeTeam    string     `json:"claude_team"`
	LeadSessionID string     `json:"lead_session_id"`
	StoppedAt     *time.Time `json:"stopped_at"`
	Members       []struct {
		Name      string    `json:"name"`
		Pane      string    `json:"pane"`
		PID       int       `json:"pid"`
		SessionID string    `json:"session_id"`
		StartedAt time.Time `json:"started_at"`
	} `json:"members"`
}

func readState(t *testing.T, e *testenv.Env, team string) (stateFile, os.FileInfo) {
	t.Helper()
	p := filepath.Join(e.StateHome, "teamctl", team, "state.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var s stateFile
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	return s, fi
}

// safeBuffer is a bytes.Buffer safe for a writer goroutine and a reading test.
type safeBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *safeBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *safeBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// live reports a state of a member whose program runs: running (working, a
// Claude Code member's word for it), or what the supervisor has seen of it
// since (idle, stalled).
func live(state string) bool {
	return state == "running" || state == "working" || state == "idle" || state == "stalled"
}
