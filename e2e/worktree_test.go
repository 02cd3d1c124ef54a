package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/internal/fakeapi"
)

// gitRepo makes a repository with one commit in the world's work folder.
func (w *world) gitRepo() string {
	w.t.Helper()
	dir := filepath.Join(w.e.Work, "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "README"), []byte("a repository\n"), 0o644)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.invalid", "-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+w.e.Home, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			w.t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// worktreeTeam writes a layout whose teammates each have a worktree; extra
// goes at the top level (worktrees:, trust:).
func (w *world) worktreeTeam(extra string, prompts map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "team: %s\nroot: repo\n%sclaude:\n  command: claude\nmembers:\n", w.team, extra)
	for name, p := range prompts {
		fmt.Fprintf(&b, "  - name: %s\n    worktree: true\n    prompt: %q\n", name, p)
	}
	return w.e.WriteFile("team.yaml", b.String())
}

// checkWorktreeTurns waits for each teammate's prompt to reach the model from
// its worktree (Claude Code tells the model its working directory) and checks
// that no pane showed the trust dialog.
func (w *world) checkWorktreeTurns(prompts map[string]string, dirs map[string]string) {
	w.t.Helper()
	for name, p := range prompts {
		req := w.waitRequest(name+"'s prompt as a turn", func(r fakeapi.Request) bool { return r.IsTurn() && r.UserTextContains(p) })
		if !strings.Contains(string(req.RawBody), dirs[name]) {
			w.t.Errorf("%s's turn does not name its worktree %s as its working directory", name, dirs[name])
		}
	}
	panes := w.panes()
	mates := map[string]string{}
	for name := range prompts {
		mates[name] = panes[name]
	}
	w.waitScreens("each teammate back at its input box", mates, func(_, s string) bool {
		_, idle := inputBox(s)
		return idle
	})
	for name, pane := range mates {
		if s := w.screen(pane); strings.Contains(s, "Accessing workspace:") || strings.Contains(s, "trust this folder") {
			w.t.Errorf("%s shows the trust dialog:\n%s", name, s)
		}
	}
}

// TestWorktreeInheritsTheRepositorysTrust: Claude Code takes a worktree of a
// trusted repository as trusted, inside the repository's .teamctl/worktrees
// or elsewhere, so its teammate starts without the trust dialog.
func TestWorktreeInheritsTheRepositorysTrust(t *testing.T) {
	t.Parallel()
	prompts := map[string]string{"alice": "Work in your worktree; token WT-IN-4c1e."}
	w := newWorld(t, "wtin", false, fakeapi.Rules(
		fakeapi.Rule{When: fakeapi.LastUserContains(prompts["alice"]), Reply: fakeapi.Always(fakeapi.Text("Done in the worktree."))},
	))
	repo := w.gitRepo()
	w.writeClaudeJSONTrusting(repo)
	w.e.MustRun("up", w.worktreeTeam("", prompts))
	w.checkWorktreeTurns(prompts, map[string]string{"alice": filepath.Join(repo, ".teamctl", "worktrees", "wtin", "alice")})
	if s := w.screen(w.panes()["lead"]); strings.Contains(s, "Accessing workspace:") {
		t.Errorf("the lead in the trusted repository shows the trust dialog:\n%s", s)
	}
}

// TestTrustTrueRecordsAWorktree: the repository is not trusted (only the
// folder above it, which Claude Code does not carry into a repository), so
// its worktrees would stop at the trust dialog; with trust: true up records
// them in Claude Code's config and the teammates start without it.
func TestTrustTrueRecordsAWorktree(t *testing.T) {
	t.Parallel()
	prompts := map[string]string{"bob": "Work in your worktree; token WT-OUT-9a2f."}
	w := newWorld(t, "wtout", true, fakeapi.Rules(
		fakeapi.Rule{When: fakeapi.LastUserContains(prompts["bob"]), Reply: fakeapi.Always(fakeapi.Text("Done outside."))},
	))
	w.gitRepo()
	outside := filepath.Join(w.e.Dir, "worktrees")
	w.e.MustRun("up", w.worktreeTeam(fmt.Sprintf("worktrees: %q\ntrust: true\n", outside), prompts))
	w.checkWorktreeTurns(prompts, map[string]string{"bob": filepath.Join(outside, "wtout", "bob")})
	// The lead, in the repository itself, was not trusted and asks.
	w.waitScreens("the lead at the trust dialog", map[string]string{"lead": w.panes()["lead"]}, func(_, s string) bool {
		return strings.Contains(s, "Accessing workspace:")
	})
}
