package main_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestTeamOfPlainProcesses: a layout of plain command: members and no lead:
// comes up with no Claude Code anywhere (it was refused: `Claude Code program
// "claude" not found`), with no lead and none of Claude Code's files; the
// watchdog sees a process waiting at a prompt and answer answers it; a
// process that dies is restarted; logs, diff of a member's worktree, down
// and clean work as for any team.
func TestTeamOfPlainProcesses(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.Extra = append(e.Extra, "PATH=/usr/bin:/bin", "TEAMCTL_RESTART_BACKOFF=50ms")
	repo, _ := appRepo(t, e)
	layout := e.WriteFile("team.yaml", `team: procs
root: repo
members:
  - name: web
    command: [sh, -c, "echo serving on 8000; exec sleep 1000"]
    restart: always
  - name: asker
    command: [sh, -c, "printf 'Overwrite? (y/n) '; read a; echo answered:$a; exec sleep 1000"]
  - name: tests
    command: [sleep, "1000"]
    worktree: true
watchdog: {quiet: 300ms}
`)
	if r := e.MustRun("validate", layout); !strings.Contains(r.Stdout, "team procs, 3 plain process(es) and no lead: valid") {
		t.Errorf("validate: %s", r.Stdout)
	}
	e.MustRun("up", layout)
	s := getStatus(t, e, "procs")
	var names []string
	for _, m := range s.Members {
		names = append(names, m.Name+" "+m.Role)
	}
	if got := strings.Join(names, ", "); got != "web process, asker process, tests process" {
		t.Errorf("members: %s", got)
	}
	if _, err := os.Stat(filepath.Join(e.ClaudeDir, "teams")); err == nil {
		t.Errorf("a team of processes made Claude Code's teams folder")
	}

	// The watchdog: asker waits at its prompt.
	testenv.Eventually(t, 20*time.Second, "asker stalled at its prompt", func() (bool, string) {
		for _, m := range getStatus(t, e, "procs").Members {
			if m.Name == "asker" {
				return m.State == "stalled", m.State
			}
		}
		return false, ""
	})
	e.MustRun("answer", "asker", "y", "--team", "procs")
	waitScreen(t, e, "teamctl-procs", memberPane(t, e, "procs", "asker"), "answered:y")

	// A restart of a process that dies.
	var web int
	for _, m := range getStatus(t, e, "procs").Members {
		if m.Name == "web" {
			web = m.PID
		}
	}
	if err := syscall.Kill(web, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 20*time.Second, "web restarted", func() (bool, string) {
		for _, m := range getStatus(t, e, "procs").Members {
			if m.Name == "web" {
				return m.State == "running" && m.PID != web && m.Restarts == 1, strconv.Itoa(m.PID)
			}
		}
		return false, ""
	})
	if r := e.MustRun("logs", "web", "--team", "procs"); !strings.Contains(r.Stdout, "serving on 8000") {
		t.Errorf("logs web:\n%s", r.Stdout)
	}

	// tests's worktree: its work is there to review, and clean takes it.
	wt := filepath.Join(repo, ".teamctl", "worktrees", "procs", "tests")
	os.WriteFile(filepath.Join(wt, "new.go"), []byte("package main\n"), 0o644)
	if r := e.MustRun("diff", "--stat", "--team", "procs"); !strings.Contains(r.Stdout, "new.go") {
		t.Errorf("diff --stat:\n%s", r.Stdout)
	}
	os.Remove(filepath.Join(wt, "new.go"))
	e.MustRun("down", "--team", "procs")
	e.MustRun("clean", "procs", "--yes")
	if _, err := os.Stat(wt); err == nil {
		t.Errorf("clean left the worktree %s", wt)
	}
}
