package trust

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/layouts"
)

// layout writes yaml as team.yaml in dir and parses it.
func layout(t *testing.T, dir, yaml string) *layouts.Layout {
	t.Helper()
	p := filepath.Join(dir, "team.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := layouts.Parse(p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestOf: each Claude Code member's folder is looked up in the config its
// Claude Code reads (the member's CLAUDE_CONFIG_DIR over teamctl's); a
// process member is left out, and so is a whole layout whose Claude Code is
// teamctl's stand-in.
func TestOf(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("TEAMCTL_CLAUDE", "")
	ours, theirs := filepath.Join(dir, "claude"), filepath.Join(dir, "other")
	t.Setenv("CLAUDE_CONFIG_DIR", ours)
	trusted, untrusted := filepath.Join(dir, "trusted"), filepath.Join(dir, "untrusted")
	for _, d := range []string{ours, theirs, trusted, untrusted} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := claudecode.Trust(claudecode.GlobalConfigPath(ours, ""), trusted); err != nil {
		t.Fatal(err)
	}
	l := layout(t, dir, `team: t
lead:
  cwd: `+trusted+`
members:
  - name: a
    cwd: `+untrusted+`
  - name: b
    cwd: `+trusted+`
    env: {CLAUDE_CONFIG_DIR: `+theirs+`}
  - name: logs
    command: [true]
`)
	got := Of(context.Background(), l)
	want := []Folder{
		{Member: "lead", Dir: trusted, Config: filepath.Join(ours, ".claude.json"), Trusted: true},
		{Member: "a", Dir: untrusted, Config: filepath.Join(ours, ".claude.json")},
		{Member: "b", Dir: trusted, Config: filepath.Join(theirs, ".claude.json")},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("member %d: got %+v, want %+v", i, got[i], want[i])
		}
	}

	// A worktree member's folder is its worktree's, placed as up places it
	// (not made): trusted with its repository, recorded by up with trust: true.
	repo := filepath.Join(dir, "repo")
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	wt := layout(t, dir, "team: t\ntrust: true\nlead:\n  cwd: "+repo+"\n  worktree: true\n")
	got = Of(context.Background(), wt)
	place := filepath.Join(repo, ".teamctl", "worktrees", "t", "lead")
	if len(got) != 1 || got[0] != (Folder{Member: "lead", Dir: place, Config: filepath.Join(ours, ".claude.json"), ByUp: true, Worktree: true}) {
		t.Errorf("a worktree member: %+v", got)
	}
	if err := claudecode.Trust(claudecode.GlobalConfigPath(ours, ""), repo); err != nil {
		t.Fatal(err)
	}
	if got = Of(context.Background(), wt); len(got) != 1 || !got[0].Trusted {
		t.Errorf("a worktree of a trusted repository: %+v", got)
	}

	standIn := layout(t, dir, "team: t\nclaude: {command: /usr/bin/teamctl, args: [stand-in]}\nlead:\n  cwd: "+untrusted+"\n")
	if !StandIn(standIn) || Of(context.Background(), standIn) != nil {
		t.Errorf("a stand-in layout: StandIn %v, Of %+v", StandIn(standIn), Of(context.Background(), standIn))
	}
}
