package clean

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
)

// TestCleanEndsWhatAnAgentMemberLeft: cleaning a team that was not brought
// down (its server gone: a crash, a reboot of tmux alone) ends the
// processes running from its Codex or Gemini members' homes (Codex's
// app-server daemon outlives its pane) before their folder goes, found by
// that home in their environment; a process whose home is elsewhere stays.
func TestCleanEndsWhatAnAgentMemberLeft(t *testing.T) {
	c := world(t)
	if err := state.Save(&state.Team{Team: "t"}); err != nil {
		t.Fatal(err)
	}
	home, err := state.AgentHome("t", "coder", "codex")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	start := func(env string) (*exec.Cmd, chan error) {
		cmd := exec.Command("sleep", "600")
		cmd.Env = append(os.Environ(), env)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		t.Cleanup(func() { cmd.Process.Kill() })
		return cmd, done
	}
	_, daemon := start("CODEX_HOME=" + home)
	_, other := start("CODEX_HOME=" + filepath.Join(t.TempDir(), "codex"))

	if _, err := Run(c, Options{Team: "t"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-daemon:
	case <-time.After(time.Minute):
		t.Fatal("the process running from coder's Codex home is still running after clean")
	}
	select {
	case err := <-other:
		t.Errorf("a process with its Codex home elsewhere ended: %v", err)
	default:
	}
	if dir, _ := state.Dir("t"); exists(dir) {
		t.Errorf("the team's state folder is left")
	}
}
