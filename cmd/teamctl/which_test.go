package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testenv"
)

// runIn runs teamctl in dir with env added to the test's, as a person does
// in that folder.
func runIn(t *testing.T, e *testenv.Env, dir string, env []string, args ...string) testenv.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, args...)
	cmd.Env = append(e.Environ(), env...)
	cmd.Dir = dir
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	r := testenv.Result{Stdout: so.String(), Stderr: se.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.Code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run teamctl %v: %v", args, err)
	}
	return r
}

// twoTeams brings up proj, from the teamctl.yaml committed in the
// repository repo (alice in a worktree), and other, from the teamctl.yaml
// of its own folder, each with a bare `up` in its folder, as the README
// says.
func twoTeams(t *testing.T, e *testenv.Env) (repo, other string) {
	t.Helper()
	repo, _ = appRepo(t, e)
	standInLayout(e, "repo/teamctl.yaml", "team: proj\nmembers:\n  - name: alice\n    command: [sleep, \"1000\"]\n    worktree: true\n")
	gitIn(t, repo, "add", "teamctl.yaml")
	gitIn(t, repo, "commit", "-q", "-m", "the team's layout")
	standInLayout(e, "other/teamctl.yaml", "team: other\nmembers:\n  - name: carol\n    command: [sleep, \"1000\"]\n")
	other = filepath.Join(e.Work, "other")
	for _, dir := range []string{repo, other} {
		if r := runIn(t, e, dir, nil, "up"); r.Code != 0 {
			t.Fatalf("up in %s: exit %d\n%s%s", dir, r.Code, r.Stdout, r.Stderr)
		}
	}
	return repo, other
}

// TestTheTeamYouAreIn (issue 31): with two teams up, a command without
// --team run in a team's folder, repository or worktree, or on its tmux
// server, means that team, and says so on stderr in a line; outside every
// team it asks for one; after `down`, `finish` in the team's repository
// finishes its member though another team is up (the README's worked
// example).
func TestTheTeamYouAreIn(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	repo, other := twoTeams(t, e)
	alice := filepath.Join(repo, ".teamctl", "worktrees", "proj", "alice")

	teamOf := func(dir string, env []string, args ...string) (string, testenv.Result) {
		t.Helper()
		r := runIn(t, e, dir, env, append(args, "status", "--json")...)
		var s status
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &s) != nil {
			t.Fatalf("status --json in %s: exit %d\n%s%s", dir, r.Code, r.Stdout, r.Stderr)
		}
		return s.Team, r
	}
	if r := runIn(t, e, e.Work, nil, "status"); r.Code == 0 || !strings.Contains(r.Stderr, "2 teams are up (other, proj)") {
		t.Errorf("status outside both teams: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, c := range []struct {
		what, dir string
		env       []string
		team, why string
	}{
		{"the repository, whose teamctl.yaml is proj's", repo, nil, "proj", "teamctl: team proj (its layout file is " + filepath.Join(repo, "teamctl.yaml") + "); --team names another\n"},
		{"a folder of the repository", filepath.Join(repo, "src"), nil, "proj", "its layout file is " + filepath.Join(repo, "teamctl.yaml")},
		{"alice's worktree", alice, nil, "proj", "is in its worktree " + alice},
		{"other's folder", other, nil, "other", "its layout file is " + filepath.Join(other, "teamctl.yaml")},
		{"a pane of other's server, in proj's repository", repo, []string{fmt.Sprintf("TMUX=%s/tmux-%d/teamctl-other,1,0", e.TmuxTmpDir, os.Getuid())}, "other", "this pane is on its tmux server"},
		{"TEAMCTL_TEAM, in proj's repository", repo, []string{"TEAMCTL_TEAM=other"}, "other", ""},
	} {
		got, r := teamOf(c.dir, c.env)
		if got != c.team {
			t.Errorf("in %s: status is of team %q; want %s\n%s", c.what, got, c.team, r.Stderr)
		}
		if (c.why == "" && r.Stderr != "") || !strings.Contains(r.Stderr, c.why) || strings.Count(r.Stderr, "\n") > 1 {
			t.Errorf("in %s: stderr %q; want one line saying %q", c.what, r.Stderr, c.why)
		}
	}
	if got, r := teamOf(repo, nil, "--team", "other"); got != "other" || r.Stderr != "" {
		t.Errorf("--team other in proj's repository: %s, stderr %q", got, r.Stderr)
	}

	// The README's worked example: down, then finish with no --team, while
	// another team is up.
	if err := os.WriteFile(filepath.Join(alice, "notes.md"), []byte("alice's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runIn(t, e, repo, nil, "down", "--now"); r.Code != 0 || !strings.Contains(r.Stderr+r.Stdout, "proj") {
		t.Fatalf("down in proj's repository: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if s := getStatus(t, e, "other"); len(s.Members) == 0 || !live(s.Members[len(s.Members)-1].State) {
		t.Fatalf("down in proj's repository stopped other: %+v", s)
	}
	r := runIn(t, e, repo, nil, "finish", "alice", "--wip", "--squash")
	if r.Code != 0 || !strings.Contains(r.Stdout, "deleted branch teamctl/proj/alice") || exists(alice) {
		t.Errorf("finish alice --wip --squash in proj's repository after down: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "notes.md")); string(b) != "alice's\n" {
		t.Errorf("alice's work did not land in proj's repository: %q", b)
	}
}

// TestCleanTheTeamYouAreIn (issue 31: clean with no team name cleaned every
// team): run in a team's repository, clean acts on that team only, and the
// plan it shows before its question says what it will refuse (alice's
// worktree, for its untracked scratch.txt) as --dry-run does; the other
// team's state, and the file in it, stay; --all-teams means every team.
func TestCleanTheTeamYouAreIn(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	repo, _ := twoTeams(t, e)
	alice := filepath.Join(repo, ".teamctl", "worktrees", "proj", "alice")
	if err := os.WriteFile(filepath.Join(alice, "scratch.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, team := range []string{"proj", "other"} {
		e.MustRun("down", "--now", "--team", team)
	}
	otherState := filepath.Join(e.StateHome, "teamctl", "other")
	kept := filepath.Join(otherState, "demo.txt") // as the demo's approved command writes one
	if err := os.WriteFile(kept, []byte("approved\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	// On a terminal: the plan, refusal included, then the question; no.
	screen, code := cleanThroughPTYIn(t, e, repo, "n\r")
	q := strings.Index(screen, "[y/N]")
	if code != 1 || q < 0 || !strings.Contains(screen, "the team you are in: proj") || strings.Contains(screen, "teamctl/other") {
		t.Errorf("clean in proj's repository, answered n: exit %d; terminal:\n%s", code, screen)
	}
	if at := strings.Index(screen, "scratch.txt"); at < 0 || at > q || !strings.Contains(screen[:q], "refused") {
		t.Errorf("the plan before the question does not say alice's worktree is refused for scratch.txt:\n%s", screen)
	}
	// Without a terminal: --yes, or the team's name.
	if r := runIn(t, e, repo, nil, "clean"); r.Code != 2 || !strings.Contains(r.Stderr, "the team you are in (proj)") || !strings.Contains(r.Stderr, "--yes") {
		t.Errorf("clean without a terminal: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r := runIn(t, e, repo, nil, "clean", "--yes")
	if r.Code != 1 || !strings.Contains(r.Stdout, "scratch.txt") || strings.Contains(r.Stdout+r.Stderr, "teamctl/other") || strings.Contains(r.Stdout, " other ") {
		t.Errorf("clean --yes in proj's repository: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if b, err := os.ReadFile(kept); err != nil || string(b) != "approved\n" {
		t.Errorf("clean in proj's repository touched other's state folder: %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(alice, "scratch.txt")); err != nil || string(b) != "mine\n" {
		t.Errorf("alice's scratch.txt: %q, %v", b, err)
	}
	if r := runIn(t, e, repo, nil, "clean", "--all-teams", "--dry-run"); !strings.Contains(r.Stdout, otherState) {
		t.Errorf("clean --all-teams --dry-run does not plan other's state:\n%s%s", r.Stdout, r.Stderr)
	}
}
