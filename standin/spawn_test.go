package standin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/testenv"
)

func TestTmuxSocket(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/tmp/tmux-1000/default,1234,0", "/tmp/tmux-1000/default"},
		{"/tmp/a,b/sock,99,12", "/tmp/a,b/sock"},
	} {
		if got, err := tmuxSocket(tc.in); err != nil || got != tc.want {
			t.Errorf("tmuxSocket(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "/tmp/sock", "/tmp/sock,1", ",1,2"} {
		if got, err := tmuxSocket(in); err == nil {
			t.Errorf("tmuxSocket(%q) = %q, want an error", in, got)
		}
	}
}

func TestSplitArgs(t *testing.T) {
	tm := teammate{name: "helper", team: "session-12345678", color: "blue", parentSessionID: sessionID}
	tail := []string{"/bin/teamctl", "stand-in", "--agent-id", "helper@session-12345678", "--agent-name", "helper",
		"--team-name", "session-12345678", "--agent-color", "blue", "--parent-session-id", sessionID}
	head := []string{"-S", "/s/sock", "split-window", "-d", "-t", "%1", "-P", "-F", "#{pane_id}",
		"-e", "CLAUDECODE=1", "-e", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1"}
	if got, want := splitArgs("/s/sock", "%1", "/bin/teamctl", tm), append(head[:len(head):len(head)], tail...); !reflect.DeepEqual(got, want) {
		t.Errorf("splitArgs =\n %q\nwant\n %q", got, want)
	}
	tm.script = "work:1s,ask"
	want := append(append(head[:len(head):len(head)], "-e", "TEAMCTL_STANDIN_SCRIPT=work:1s,ask"), tail...)
	if got := splitArgs("/s/sock", "%1", "/bin/teamctl", tm); !reflect.DeepEqual(got, want) {
		t.Errorf("splitArgs with a script =\n %q\nwant\n %q", got, want)
	}
}

func TestAddMemberKeepsWhatItDoesNotKnow(t *testing.T) {
	for _, bad := range []string{"", "[]", "null", `{"members":{}}`, `{"a":1} {}`, `{"a":1`} {
		path := filepath.Join(t.TempDir(), "config.json")
		os.WriteFile(path, []byte(bad), 0o600)
		if err := addMember(path, member{Name: "x"}); err == nil {
			t.Errorf("addMember to %q: no error", bad)
		}
	}
	if err := addMember(filepath.Join(t.TempDir(), "none.json"), member{Name: "x"}); err == nil {
		t.Error("addMember to no file: no error")
	}

	path := filepath.Join(t.TempDir(), "config.json")
	before := `{"name":"session-12345678","createdAt":1,"leadAgentId":"team-lead@session-12345678","leadSessionId":"` + sessionID + `",` +
		`"futureField":{"x":[1,2]},"members":[{"agentId":"team-lead@session-12345678","name":"team-lead","agentType":"team-lead",` +
		`"joinedAt":1,"tmuxPaneId":"leader","cwd":"/p","subscriptions":[],"backendType":"in-process","futureMemberField":true}]}`
	if err := os.WriteFile(path, []byte(before), 0o640); err != nil {
		t.Fatal(err)
	}
	tm := teammate{name: "helper", team: "session-12345678", color: "red", parentSessionID: sessionID}
	if err := addMember(path, tmuxMember(tm, "%3", "/w&x", time.UnixMilli(1795992185450))); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Everything else stays as it was, in its order; the teammate comes last.
	wantNew := `{"agentId":"helper@session-12345678","name":"helper","agentType":"general-purpose","joinedAt":1795992185450,` +
		`"tmuxPaneId":"%3","cwd":"/w&x","subscriptions":[],"backendType":"tmux","color":"red"}`
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSuffix(before, "]}") + "," + wantNew + "]}"; compact.String() != want {
		t.Errorf("config after addMember:\n%s\nwant (compacted)\n%s", data, want)
	}
	if !bytes.Contains(data, []byte("{\n  \"name\": \"session-12345678\",\n  \"createdAt\": 1,\n")) {
		t.Errorf("not indented like Claude Code's:\n%s", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	cfg, err := claudecode.ReadTeamConfig(path)
	if err != nil || cfg.LeadSessionID != sessionID || cfg.Members[1].TmuxPaneID != "%3" || cfg.Members[1].BackendType != "tmux" {
		t.Errorf("ReadTeamConfig = %+v, %v", cfg, err)
	}
	if names, err := memberNames(path); err != nil || !reflect.DeepEqual(names, []string{"team-lead", "helper"}) {
		t.Errorf("memberNames = %q, %v", names, err)
	}
}

// TestSpawnInTmux runs the built stand-in as a lead in a private tmux server and
// has it spawn a teammate there, as Claude Code's Agent tool would.
func TestSpawnInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	bin := testenv.Binary(t)
	// Unix socket paths are short (~108 bytes): keep the server's folder short.
	tmp, err := os.MkdirTemp("", "sp")
	if err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(tmp, "s")
	conf := filepath.Join(tmp, "tmux.conf")
	// Keep a dead pane's last screen for the failure message.
	if err := os.WriteFile(conf, []byte("set -g remain-on-exit on\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	home, claudeDir, work := t.TempDir(), t.TempDir(), t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "TMUX", "TMUX_PANE", "TMUX_TMPDIR", "HOME", "CLAUDE_CONFIG_DIR", "CLAUDECODE",
			"CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS", "TEAMCTL_STANDIN_SCRIPT", "TEAMCTL_STANDIN_WORK":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "CLAUDE_CONFIG_DIR="+claudeDir, "TMUX_TMPDIR="+tmp)
	tmux := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "tmux", append([]string{"-S", socket, "-f", conf}, args...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("tmux %s: %v: %s", args[0], err, out)
		}
		return string(out), nil
	}
	t.Cleanup(func() {
		tmux("kill-server")
		os.RemoveAll(tmp)
	})

	out, err := tmux("new-session", "-d", "-s", "lead", "-x", "200", "-y", "50", "-c", work, "-P", "-F", "#{pane_id}",
		"-e", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1", "-e", "TEAMCTL_STANDIN_SCRIPT=spawn:helper:ask",
		bin, "stand-in", "--session-id", sessionID, "--teammate-mode", "tmux")
	if err != nil {
		t.Fatal(err)
	}
	leadPane := strings.TrimSpace(out)
	config := filepath.Join(claudeDir, "teams", "session-12345678", "config.json")
	screen := func(pane string) string {
		s, err := tmux("capture-pane", "-p", "-J", "-t", pane)
		if err != nil {
			return err.Error()
		}
		return s
	}

	// A second pane, titled with the teammate's name.
	var pane string
	testenv.Eventually(t, 15*time.Second, "a pane titled helper", func() (bool, string) {
		out, err := tmux("list-panes", "-a", "-F", "#{pane_id}\t#{pane_title}")
		if err != nil {
			return false, err.Error()
		}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if id, title, _ := strings.Cut(l, "\t"); id != leadPane && title == "helper" {
				pane = id
				return true, out
			}
		}
		return false, out + "\nlead's pane:\n" + screen(leadPane)
	})
	// The teammate in the lead's config.json, with that pane.
	var member struct {
		AgentID, Name, AgentType, TmuxPaneID, Cwd, BackendType, Color string
		JoinedAt                                                      int64
		Subscriptions                                                 []json.RawMessage
	}
	testenv.Eventually(t, 15*time.Second, "helper in "+config, func() (bool, string) {
		data, err := os.ReadFile(config)
		if err != nil {
			return false, err.Error()
		}
		var cfg struct {
			LeadSessionID string            `json:"leadSessionId"`
			Members       []json.RawMessage `json:"members"`
		}
		if json.Unmarshal(data, &cfg) != nil || cfg.LeadSessionID != sessionID || len(cfg.Members) != 2 {
			return false, string(data)
		}
		member.Name = ""
		json.Unmarshal(cfg.Members[1], &member)
		return member.Name == "helper" && member.TmuxPaneID == pane, string(data)
	})
	// The teammate's own screen.
	testenv.Eventually(t, 15*time.Second, "the question on "+pane, func() (bool, string) {
		s := screen(pane)
		return strings.Contains(s, "Overwrite? (y/n)"), s
	})

	if member.AgentID != "helper@session-12345678" || member.AgentType != "general-purpose" || member.BackendType != "tmux" ||
		member.Color != "red" || member.Subscriptions == nil || len(member.Subscriptions) != 0 ||
		time.Since(time.UnixMilli(member.JoinedAt)) > time.Minute || !sameDir(member.Cwd, work) {
		t.Errorf("member = %+v", member)
	}
	if s := screen(pane); !strings.Contains(s, "✻ Claude Code (stand-in) · helper · model default") {
		t.Errorf("teammate's screen:\n%s", s)
	}
	// The lead says so once it has recorded the teammate: a redraw after the
	// config.json write the wait above saw.
	testenv.Eventually(t, 15*time.Second, "the spawn said on the lead's screen", func() (bool, string) {
		s := screen(leadPane)
		return strings.Contains(s, "Spawned teammate @helper in pane "+pane), s
	})
	if cmd, _ := tmux("display-message", "-p", "-t", pane, "#{pane_start_command}"); !strings.Contains(cmd, "--agent-id helper@session-12345678") ||
		!strings.Contains(cmd, "--parent-session-id "+sessionID) || !strings.Contains(cmd, "--agent-color red") {
		t.Errorf("teammate's command: %s", cmd)
	}
	// It answers like any stand-in.
	if _, err := tmux("send-keys", "-t", pane, "-l", "y"); err != nil {
		t.Fatal(err)
	}
	if _, err := tmux("send-keys", "-t", pane, "Enter"); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 15*time.Second, "the answer on "+pane, func() (bool, string) {
		s := screen(pane)
		return strings.Contains(s, "answered: y"), s
	})
}

func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
