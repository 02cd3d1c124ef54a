package main_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestInit: init in a repository writes a commented teamctl.yaml — the team
// named after the folder, sanitised; a lead, alice and bob in worktrees of
// their own — that validates; a second init refuses and leaves the file as
// it was. --standin, in a folder of no repository, writes one that comes up
// with no Claude Code anywhere, its members run by the stand-in.
func TestInit(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	repo := filepath.Join(e.Work, "My App.v2")
	os.MkdirAll(repo, 0o755)
	os.WriteFile(filepath.Join(repo, "main.go"), []byte("package main\n"), 0o644)
	gitIn(t, repo, "init", "-q", "-b", "main")
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "first")

	claude := []string{"TEAMCTL_CLAUDE=" + e.WriteExecutable("bin/claude", "#!/bin/sh\necho '2.1.332 (Claude Code)'\n")}
	r := runIn(t, e, repo, claude, "init")
	if r.Code != 0 || r.Stderr != "" || r.Stdout == "" || !strings.HasPrefix(r.Stdout, "wrote teamctl.yaml (team my-app-v2: a lead and two teammates, alice and bob, each in a worktree of its own)\n") {
		t.Fatalf("init: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	file := filepath.Join(repo, "teamctl.yaml")
	written, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# ", "team: my-app-v2", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS", "lead:", "- name: alice", "- name: bob", "worktree: true", "watchdog:", "quiet: 2s"} {
		if !strings.Contains(string(written), want) {
			t.Errorf("teamctl.yaml lacks %q:\n%s", want, written)
		}
	}
	if v := runIn(t, e, repo, claude, "validate"); v.Code != 0 || !strings.Contains(v.Stdout, "team my-app-v2, lead lead and 2 member(s): valid") {
		t.Errorf("validate of what init wrote: exit %d\n%s%s", v.Code, v.Stdout, v.Stderr)
	}
	os.WriteFile(file, append(written, "# my own edit\n"...), 0o644)
	mine, _ := os.ReadFile(file)
	r = runIn(t, e, repo, claude, "init")
	if r.Code != 1 || !strings.Contains(r.Stderr, "teamctl.yaml is here already: not replaced") {
		t.Errorf("a second init: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if now, _ := os.ReadFile(file); !bytes.Equal(now, mine) {
		t.Errorf("a second init changed teamctl.yaml:\n%s", now)
	}
	if left, _ := filepath.Glob(filepath.Join(repo, ".*")); slices.ContainsFunc(left, func(p string) bool { return !strings.HasSuffix(p, ".git") }) {
		t.Errorf("init left files behind: %q", left)
	}

	// --standin, where there is no repository: no worktrees, no Claude Code.
	plain := filepath.Join(e.Work, "plain")
	os.MkdirAll(plain, 0o755)
	noClaude := []string{"PATH=/usr/bin:/bin"}
	r = runIn(t, e, plain, noClaude, "init", "--standin")
	if r.Code != 0 || !strings.Contains(r.Stdout, "team plain: a lead and two teammates, alice and bob, in this folder (no worktrees: ") ||
		!strings.Contains(r.Stdout, "run by teamctl's stand-in: no Claude Code needed") {
		t.Fatalf("init --standin: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := runIn(t, e, plain, noClaude, "up"); r.Code != 0 {
		t.Fatalf("up of init --standin's layout: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	s := getStatus(t, e, "plain")
	var names []string
	for _, m := range s.Members {
		names = append(names, m.Name+" "+m.Role)
	}
	if want := []string{"lead lead", "alice teammate", "bob teammate"}; !slices.Equal(names, want) {
		t.Errorf("the stand-in team's members: %q, want %q", names, want)
	}
	testenv.Eventually(t, 30*time.Second, "alice stalled at the stand-in's question", func() (bool, string) {
		for _, m := range getStatus(t, e, "plain").Members {
			if m.Name == "alice" {
				return m.State == "stalled", m.State
			}
		}
		return false, "no alice"
	})
	e.MustRun("down", "--team", "plain")
}
