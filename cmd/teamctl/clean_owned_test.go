package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/testenv"
)

// editJSON rewrites the JSON object in path with edit.
func editJSON(t *testing.T, path string, edit func(map[string]any)) {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(mustRead(t, path)), &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	edit(v)
	b, _ := json.MarshalIndent(v, "", "  ")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

const notOurs = "not removed: not a worktree teamctl or Claude Code made for this team"

// TestCleanRemovesOnlyWorktreesItOwns: worktreePath entries added to the
// team's config.json (which the lead's or any teammate's Bash tool can write)
// and worktrees added to state.json name a person's repository, their own
// worktrees (one beside the repository, two inside .claude/worktrees: on a
// branch of their own, and detached), a folder of files, and the person's own
// `claude --worktree` session — made exactly as Claude Code makes a
// teammate's, with uncommitted work in it. clean TEAM, and clean TEAM
// --force, leave every one of them as it was, saying why, and still remove
// the worktree Claude Code made for the team — one a member of the team ran
// in (team one), or on a branch teamctl recorded (team two) — and the team's
// folders.
func TestCleanRemovesOnlyWorktreesItOwns(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	repo := gitRepo(t, e, "repo")
	victim := gitRepo(t, e, "victim")
	mine := filepath.Join(e.Work, "mine")
	gitIn(t, repo, "worktree", "add", "-q", "-b", "mine", mine)
	theirs := filepath.Join(repo, ".claude", "worktrees", "theirs")
	gitIn(t, repo, "worktree", "add", "-q", "-b", "feature", theirs)
	detached := filepath.Join(repo, ".claude", "worktrees", "detached")
	gitIn(t, repo, "worktree", "add", "-q", "--detach", detached)
	files := filepath.Join(e.Work, "files")
	os.MkdirAll(files, 0o700)
	os.WriteFile(filepath.Join(files, "notes.txt"), []byte("mine"), 0o600)
	// Claude Code 2.1.328's own: <repo>/.claude/worktrees/<slug> on branch worktree-<slug>.
	agent := func(slug string) string {
		p := filepath.Join(repo, ".claude", "worktrees", slug)
		gitIn(t, repo, "worktree", "add", "-q", "-b", "worktree-"+slug, p)
		return p
	}
	ccOne, ccTwo := agent("agent-a0123456789abcdef"), agent("agent-afedcba987654321")
	person := agent("person-session")
	os.WriteFile(filepath.Join(person, "src", "main.go"), []byte("package main // the person's work\n"), 0o644)
	os.WriteFile(filepath.Join(person, "draft.txt"), []byte("not committed"), 0o644)

	body := "root: repo\nmembers:\n  - name: mate\n    prompt: hello\n"
	foreign := []string{victim, mine, theirs, detached, files, person}
	for team, cc := range map[string]string{"one": ccOne, "two": ccTwo} {
		layout := "team: " + team + "\n" + body
		if team == "one" {
			// A member of the team runs in the worktree: teamctl records its cwd.
			layout += "  - name: wt\n    command: [sleep, \"600\"]\n    cwd: .claude/worktrees/agent-a0123456789abcdef\n"
		}
		e.MustRun("up", standInLayout(e, team+".yaml", layout))
		e.MustRun("down", "--team", team, "--now")
		st, _ := readState(t, e, team)
		editJSON(t, filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam, "config.json"), func(v map[string]any) {
			ms, _ := v["members"].([]any)
			for i, p := range append(append([]string{}, foreign...), cc) {
				ms = append(ms, map[string]any{"name": fmt.Sprintf("x%d", i), "agentId": fmt.Sprintf("x%d@%s", i, st.ClaudeTeam), "worktreePath": p})
			}
			v["members"] = ms
		})
		// teamctl's own record, edited: worktrees that are not where teamctl puts them.
		editJSON(t, filepath.Join(e.StateHome, "teamctl", team, "state.json"), func(v map[string]any) {
			v["worktrees"] = []any{
				map[string]any{"member": "mate", "path": mine, "main": repo, "branch": "mine", "created_branch": true, "base": "main"},
				map[string]any{"member": "mate", "path": victim, "main": e.Work, "branch": "main", "created_branch": false},
			}
			if team == "two" {
				// teamctl recorded the branch Claude Code's worktree is on.
				v["worktrees"] = append(v["worktrees"].([]any), map[string]any{"member": "cc", "path": filepath.Join(repo, ".teamctl", "worktrees", "two", "cc"),
					"main": repo, "branch": "worktree-agent-afedcba987654321", "created_branch": false})
			}
		})
	}

	check := func(team, cc string, args ...string) {
		t.Helper()
		rep, res := runClean(t, e, append([]string{team}, args...)...)
		t.Logf("clean %s %v:\n%+v", team, args, rep.Actions)
		if res.Code != 0 {
			t.Errorf("clean %s %v: exit %d\n%s%s", team, args, res.Code, res.Stdout, res.Stderr)
		}
		for _, p := range foreign {
			said := false
			for _, a := range rep.Actions {
				if a.Target == p && a.Step == "worktree" {
					said = a.Result == "kept" && strings.Contains(a.Detail, notOurs)
					if !said {
						t.Errorf("clean %s %v: %s: %s %s, want kept %q", team, args, p, a.Result, a.Detail, notOurs)
					}
				}
			}
			if !said {
				t.Errorf("clean %s %v does not say it left %s", team, args, p)
			}
		}
		if !exists(filepath.Join(victim, ".git")) || !exists(filepath.Join(victim, "src", "main.go")) {
			t.Fatalf("clean %s %v removed (part of) the repository %s", team, args, victim)
		}
		if b, err := os.ReadFile(filepath.Join(files, "notes.txt")); err != nil || string(b) != "mine" {
			t.Fatalf("clean %s %v removed a folder that is no worktree: %v", team, args, err)
		}
		if b, err := os.ReadFile(filepath.Join(person, "draft.txt")); err != nil || string(b) != "not committed" {
			t.Fatalf("clean %s %v removed the person's own Claude Code worktree, with its work: %v", team, args, err)
		}
		if snaps := gitIn(t, repo, "for-each-ref", "refs/teamctl/snapshots/"+team+"/person-session"); snaps != "" {
			t.Errorf("clean %s %v took a snapshot of the person's worktree, which is not the team's to touch:\n%s", team, args, snaps)
		}
		list := gitIn(t, repo, "worktree", "list", "--porcelain")
		for _, p := range []string{mine, theirs, detached, person} {
			if !strings.Contains(list, "worktree "+p+"\n") || !exists(filepath.Join(p, "src", "main.go")) {
				t.Errorf("clean %s %v removed the person's worktree %s:\n%s", team, args, p, list)
			}
		}
		if !strings.Contains(gitIn(t, repo, "branch", "--list", "mine"), "mine") {
			t.Errorf("clean %s %v deleted the person's branch mine", team, args)
		}
		// What is the team's still goes: Claude Code's worktree, and the folders.
		if exists(cc) || strings.Contains(list, cc) {
			t.Errorf("clean %s %v left Claude Code's worktree %s:\n%s", team, args, cc, list)
		}
		if exists(filepath.Join(e.StateHome, "teamctl", team)) {
			t.Errorf("clean %s %v kept the team's state", team, args)
		}
	}
	check("one", ccOne)
	check("two", ccTwo, "--force")
}

// TestDownAndStatusUseOnlyTheTeamsOwnSocket: a state.json whose socket, socket
// path or team was edited — to the user's default tmux server, to nothing — makes
// down and status fail naming the file and the field; the default server and
// its pane, tmux's socket folder and the team's own members are untouched, and
// down works once the file is right again.
func TestDownAndStatusUseOnlyTheTeamsOwnSocket(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: sock\nlead: {}\nmembers:\n  - name: worker\n    command: [sleep, \"600\"]\n"))
	// The user's own default server, on this test's TMUX_TMPDIR.
	if out, err := e.Tmux("default", "new-session", "-d", "-s", "mine", "sleep", "602"); err != nil {
		t.Fatalf("default server: %v %s", err, out)
	}
	out, _ := e.Tmux("default", "list-panes", "-a", "-F", "#{pane_pid}")
	var sleeper int
	fmt.Sscanf(out, "%d", &sleeper)
	if sleeper <= 0 {
		t.Fatalf("no pane pid on the default server: %q", out)
	}
	sockDir := filepath.Join(e.TmuxTmpDir, fmt.Sprintf("tmux-%d", os.Getuid()))
	stPath := filepath.Join(e.StateHome, "teamctl", "sock", "state.json")
	orig := mustRead(t, stPath)
	members := getStatus(t, e, "sock").Members

	for _, c := range []struct {
		field string
		value any
	}{
		{"socket", "default"},
		{"socket", nil},
		{"socket_path", nil},
		{"socket_path", ""},
		{"socket_path", filepath.Join(sockDir, "default")},
		{"team", "other"},
	} {
		os.WriteFile(stPath, []byte(orig), 0o600)
		editJSON(t, stPath, func(v map[string]any) { v[c.field] = c.value })
		for _, cmd := range [][]string{{"down", "--team", "sock", "--now"}, {"status", "--team", "sock"}} {
			r := e.Run(cmd...)
			if r.Code == 0 || !strings.Contains(r.Stderr, stPath) || !strings.Contains(r.Stderr, c.field) {
				t.Errorf("%s=%v: %s: exit %d, want an error naming %s and %s:\n%s%s", c.field, c.value, cmd[0], r.Code, stPath, c.field, r.Stdout, r.Stderr)
			}
		}
		if !proc.Alive(sleeper) {
			t.Fatalf("%s=%v: down signalled the default server's pane", c.field, c.value)
		}
		if _, err := e.Tmux("default", "has-session", "-t", "=mine"); err != nil {
			t.Fatalf("%s=%v: the default server is gone: %v", c.field, c.value, err)
		}
		if !exists(sockDir) || !exists(filepath.Join(sockDir, "teamctl-sock")) {
			t.Fatalf("%s=%v: tmux's socket folder or the team's socket was removed", c.field, c.value)
		}
		for _, m := range members {
			if !proc.Alive(m.PID) {
				t.Fatalf("%s=%v: member %s was ended", c.field, c.value, m.Name)
			}
		}
	}

	os.WriteFile(stPath, []byte(orig), 0o600)
	e.MustRun("down", "--team", "sock", "--now")
	if _, err := e.Tmux("teamctl-sock", "has-session"); err == nil {
		t.Error("the team's server survived down")
	}
	if !proc.Alive(sleeper) {
		t.Error("down ended the default server's pane")
	}
}

// TestCleanRemovesOnlyClaudeTeamsItMade: clean TEAM leaves Claude Code's
// teams/TEAM and tasks/TEAM that someone else's team of that name made (its
// lead not running), and the lead's session-… team once its config names
// another lead session; --all --force still removes teams of dead leads.
func TestCleanRemovesOnlyClaudeTeamsItMade(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", "team: seven\nmembers:\n  - name: mate\n    prompt: hi\n"))
	e.MustRun("down", "--team", "seven", "--now")
	st, _ := readState(t, e, "seven")

	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	other := "0f0f0f0f-0000-4000-8000-000000000000"
	sameName := filepath.Join(e.ClaudeDir, "teams", "seven")
	sameTasks := filepath.Join(e.ClaudeDir, "tasks", "seven")
	os.MkdirAll(sameName, 0o700)
	os.MkdirAll(sameTasks, 0o700)
	os.WriteFile(filepath.Join(sameName, "config.json"), []byte(fmt.Sprintf(`{"name": "seven", "leadSessionId": %q, "leadProcess": {"pid": %d}, "members": [{"name": "team-lead"}]}`, other, gone.Process.Pid)), 0o600)
	os.WriteFile(filepath.Join(sameTasks, "1.json"), []byte(`{"id":"1"}`), 0o600)
	session := filepath.Join(e.ClaudeDir, "teams", st.ClaudeTeam)
	editJSON(t, filepath.Join(session, "config.json"), func(v map[string]any) { v["leadSessionId"] = other })

	_, res := runClean(t, e, "seven")
	if res.Code != 0 {
		t.Errorf("clean seven: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	for _, p := range []string{sameName, sameTasks, filepath.Join(sameTasks, "1.json"), session} {
		if !exists(p) {
			t.Errorf("clean seven removed %s, which teamctl did not make", p)
		}
	}
	if exists(filepath.Join(e.StateHome, "teamctl", "seven")) {
		t.Error("clean seven kept the team's state")
	}

	// Teams of dead leads still go with --all --force.
	if _, res := runClean(t, e, "--all", "--force"); res.Code != 0 {
		t.Errorf("clean --all --force: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	for _, p := range []string{sameName, sameTasks} {
		if exists(p) {
			t.Errorf("%s of a dead lead survived clean --all --force", p)
		}
	}
}

// TestCleanForceNeverRemovesAFolderGitDoesNotKnow: a worktree teamctl made
// whose .git file is gone is no worktree git can vouch for: clean --force
// refuses it (exit 1), listing its files, and keeps its record; once the
// person has emptied it, clean removes it and the rest of the team.
func TestCleanForceNeverRemovesAFolderGitDoesNotKnow(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	repo := gitRepo(t, e, "repo")
	e.MustRun("up", standInLayout(e, "team.yaml", "team: gone\nroot: repo\nlead: {}\nmembers:\n  - name: w\n    command: [sleep, \"600\"]\n    worktree: true\n"))
	e.MustRun("down", "--team", "gone", "--now")
	wt := filepath.Join(repo, ".teamctl", "worktrees", "gone", "w")
	if err := os.Remove(filepath.Join(wt, ".git")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(wt, "notes.txt"), []byte("mine"), 0o600)

	rep, res := runClean(t, e, "gone", "--force")
	if res.Code != 1 {
		t.Errorf("clean --force: exit %d, want 1\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	refused := false
	for _, a := range rep.Actions {
		if a.Target == wt {
			refused = a.Result == "refused" && strings.Contains(a.Detail, "notes.txt")
		}
	}
	if !refused {
		t.Errorf("the folder is not refused naming notes.txt: %+v", rep.Actions)
	}
	if b, err := os.ReadFile(filepath.Join(wt, "notes.txt")); err != nil || string(b) != "mine" {
		t.Fatalf("clean --force removed a folder git does not know: %v", err)
	}
	if !exists(filepath.Join(e.StateHome, "teamctl", "gone", "state.json")) {
		t.Error("the team's record went while its folder stays")
	}

	// Emptied (the person took what they wanted), it goes.
	for _, f := range []string{"notes.txt", "src/main.go"} {
		os.Remove(filepath.Join(wt, f))
	}
	if _, res := runClean(t, e, "gone"); res.Code != 0 {
		t.Errorf("clean of the emptied folder: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	if exists(wt) || exists(filepath.Join(e.StateHome, "teamctl", "gone")) {
		t.Error("the emptied folder or the team's state is left")
	}
}
