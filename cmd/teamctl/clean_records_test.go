package main_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/internal/testenv"
)

// TestCleanTrustsNoEditedRecord: state.json is the members' to edit, so
// what it says of a team's worktrees is honoured only where teamctl's own
// records agree. Of a team that is down, clean (and clean --force):
//   - leaves a person's branch that a record of a layout member names
//     (release, with a commit of its own, recorded as made by teamctl and
//     as its own base, its worktree gone): not teamctl's name for the
//     member's branch, and no git config of the branch says teamctl made it;
//   - leaves another repository's worktree (on a teamctl/… branch, at
//     <other>/.teamctl/worktrees/<team>/gamma) that a record of gamma, whom
//     the team does not have, names with that folder;
//   - never deletes a branch whose commits no other ref holds without a
//     snapshot, even one merged into its base (a commit no branch holds).
func TestCleanTrustsNoEditedRecord(t *testing.T) {
	t.Parallel()
	for _, force := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "force"}[force], func(t *testing.T) {
			t.Parallel()
			e := testenv.New(t)
			repo := gitRepo(t, e, "repo")
			gitIn(t, repo, "checkout", "-q", "-b", "release")
			gitIn(t, repo, "commit", "-q", "--allow-empty", "-m", "the release's own commit")
			release := strings.TrimSpace(gitIn(t, repo, "rev-parse", "release"))
			gitIn(t, repo, "checkout", "-q", "-b", "scratch", "main")
			gitIn(t, repo, "commit", "-q", "--allow-empty", "-m", "only on beta's branch")
			only := strings.TrimSpace(gitIn(t, repo, "rev-parse", "scratch"))
			gitIn(t, repo, "checkout", "-q", "main")
			other := gitRepo(t, e, "other")
			gamma := filepath.Join(other, ".teamctl", "worktrees", "wt1", "gamma")
			gitIn(t, other, "worktree", "add", "-q", "-b", "teamctl/wt1/gamma", gamma)

			e.MustRun("up", standInLayout(e, "team.yaml", "team: wt1\nroot: repo\nmembers:\n"+
				"  - name: delta\n    command: [sleep, \"600\"]\n    worktree: true\n"+
				"  - name: beta\n    command: [sleep, \"600\"]\n    worktree: {base: "+only+"}\n"))
			e.MustRun("down", "--team", "wt1", "--now")
			gitIn(t, repo, "branch", "-D", "scratch") // beta's branch alone holds its commit
			delta := filepath.Join(repo, ".teamctl", "worktrees", "wt1", "delta")
			gitIn(t, repo, "worktree", "remove", delta)
			editJSON(t, filepath.Join(e.StateHome, "teamctl", "wt1", "state.json"), func(v map[string]any) {
				wts := v["worktrees"].([]any)
				for _, w := range wts {
					if w := w.(map[string]any); w["member"] == "delta" {
						w["branch"], w["base"], w["created_branch"] = "release", "release", true
					}
				}
				v["worktrees"] = append(wts, map[string]any{"member": "gamma", "path": gamma, "main": other,
					"folder": filepath.Join(other, ".teamctl", "worktrees"), "branch": "teamctl/wt1/gamma", "base": "main", "created_branch": true})
			})

			args := []string{"wt1"}
			if force {
				args = append(args, "--force")
			}
			rep, res := runClean(t, e, args...)
			t.Logf("clean %v: exit %d\n%s", args, res.Code, res.Stderr)
			for _, a := range rep.Actions {
				t.Logf("  %s %s: %s %s", a.Step, a.Target, a.Result, a.Detail)
			}
			if got, _ := exec.Command("git", "-C", repo, "rev-parse", "--verify", "-q", "release").Output(); strings.TrimSpace(string(got)) != release {
				t.Errorf("branch release is %q, want %s (the person's, untouched)", got, release)
			}
			if !exists(filepath.Join(gamma, "src", "main.go")) || !strings.Contains(gitIn(t, other, "worktree", "list"), gamma) {
				t.Errorf("the other repository's worktree %s was removed", gamma)
			}
			if gitIn(t, other, "branch", "--list", "teamctl/wt1/gamma") == "" {
				t.Error("the other repository's branch was deleted")
			}
			if held := gitIn(t, repo, "for-each-ref", "--contains", only); held == "" {
				t.Errorf("beta's commit %s is on no ref any more: deleted without a snapshot", only)
			}
		})
	}
}
