package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/internal/testenv"
)

// gitRepo makes a repository with one commit on main under the Env's work folder.
func gitRepo(t *testing.T, e *testenv.Env, name string) string {
	t.Helper()
	dir := filepath.Join(e.Work, name)
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "src", "main.go"), []byte("package main\n"), 0o644)
	gitIn(t, dir, "init", "-q", "-b", "main")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "first")
	return dir
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.invalid", "-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// cleanReport mirrors `teamctl clean --json`.
type cleanReport struct {
	DryRun  bool `json:"dry_run"`
	Actions []struct {
		Step, Team, Target, Why, Result, Detail string
	} `json:"actions"`
}

func runClean(t *testing.T, e *testenv.Env, args ...string) (cleanReport, testenv.Result) {
	t.Helper()
	// --yes: these tests are about what clean does, not its question.
	r := e.Run(append([]string{"clean", "--json", "--yes"}, args...)...)
	var rep cleanReport
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("clean --json %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, r.Stdout, r.Stderr)
	}
	return rep, r
}

// TestWorktreesAndClean: up gives members their own worktrees (and reuses
// them); clean after down removes the clean ones, refuses a dirty worktree
// naming what would be lost, keeps an unmerged branch naming its commits,
// keeps the team's folders and state while the dirty worktree stays, and
// --force removes everything, each member's work kept in a snapshot first.
func TestWorktreesAndClean(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	repo := gitRepo(t, e, "repo")
	layout := standInLayout(e, "team.yaml", `team: wt
root: repo
members:
  - name: dirty
    cwd: src
    worktree: true
  - name: ahead
    worktree: true
  - name: tidy
    command: [sleep, "600"]
    worktree: {branch: feature/tidy, base: main}
`)
	e.MustRun("up", layout)
	wt := func(m string) string { return filepath.Join(repo, ".teamctl", "worktrees", "wt", m) }
	s := getStatus(t, e, "wt")
	cwds := map[string]string{}
	for _, m := range s.Members {
		cwds[m.Name] = m.Cwd
	}
	if cwds["dirty"] != filepath.Join(wt("dirty"), "src") || cwds["ahead"] != wt("ahead") || cwds["tidy"] != wt("tidy") || cwds["lead"] != repo {
		t.Fatalf("members' folders: %v", cwds)
	}
	// The processes really run there.
	for _, m := range s.Members {
		if got, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", m.PID)); err != nil || got != m.Cwd {
			t.Errorf("%s runs in %q (%v), want %s", m.Name, got, err, m.Cwd)
		}
	}
	list := gitIn(t, repo, "worktree", "list")
	branches := gitIn(t, repo, "branch", "--list")
	for _, want := range []string{wt("dirty"), wt("ahead"), wt("tidy")} {
		if !strings.Contains(list, want) {
			t.Errorf("git worktree list lacks %s:\n%s", want, list)
		}
	}
	for _, want := range []string{"teamctl/wt/dirty", "teamctl/wt/ahead", "feature/tidy"} {
		if !strings.Contains(branches, want) {
			t.Errorf("branches lack %s:\n%s", want, branches)
		}
	}
	if st := gitIn(t, repo, "status", "--porcelain"); st != "" {
		t.Errorf("the repository shows teamctl's worktrees folder (info/exclude): %q", st)
	}
	r := e.MustRun("up", layout)
	if strings.Contains(r.Stdout, "(branch ") {
		t.Errorf("second up made the worktree again:\n%s", r.Stdout)
	}

	// Work a person would lose: an untracked file, and a commit not in main.
	os.WriteFile(filepath.Join(wt("dirty"), "src", "notes.txt"), []byte("ideas"), 0o644)
	os.WriteFile(filepath.Join(wt("ahead"), "feature.go"), []byte("package main\n"), 0o644)
	gitIn(t, wt("ahead"), "add", "feature.go")
	gitIn(t, wt("ahead"), "commit", "-q", "-m", "half-done feature")
	e.MustRun("down", "--team", "wt", "--now")

	stDir := filepath.Join(e.StateHome, "teamctl", "wt")
	var sf stateFile
	json.Unmarshal([]byte(mustRead(t, filepath.Join(stDir, "state.json"))), &sf)
	teamDir := filepath.Join(e.ClaudeDir, "teams", sf.ClaudeTeam)
	tasksDir := filepath.Join(e.ClaudeDir, "tasks", sf.ClaudeTeam)
	os.MkdirAll(tasksDir, 0o700)
	os.WriteFile(filepath.Join(tasksDir, "1.json"), []byte(`{"id":"1"}`), 0o600)
	if !exists(teamDir) {
		t.Fatalf("no Claude Code team folder %s to clean", teamDir)
	}

	// A dry run changes nothing, and says what it would refuse.
	rep, res := runClean(t, e, "--dry-run")
	if res.Code != 1 || !rep.DryRun {
		t.Errorf("dry run: exit %d, dry_run %v", res.Code, rep.DryRun)
	}
	for _, p := range []string{wt("dirty"), wt("ahead"), wt("tidy"), teamDir, tasksDir, stDir, filepath.Join(wt("dirty"), "src", "notes.txt")} {
		if !exists(p) {
			t.Errorf("dry run removed %s", p)
		}
	}

	// Without --force: the tidy worktree and its merged branch go; the dirty
	// worktree and the unmerged one stay, and the refusals say why.
	res = e.Run("clean", "--yes")
	t.Logf("clean:\n%s", res.Stdout)
	if res.Code != 1 {
		t.Errorf("clean with refusals: exit %d, want 1\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	for _, want := range []string{"notes.txt", "kept branch teamctl/wt/ahead: 1 commit not merged into main"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("clean's report does not name %q:\n%s", want, res.Stdout)
		}
	}
	if exists(wt("tidy")) || strings.Contains(gitIn(t, repo, "branch", "--list"), "feature/tidy") {
		t.Errorf("the tidy worktree or its branch survived:\n%s", res.Stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(wt("dirty"), "src", "notes.txt")); string(b) != "ideas" {
		t.Errorf("the untracked file was lost")
	}
	// The clean worktree on the unmerged branch goes; the branch, with the commit, stays.
	if exists(wt("ahead")) || !strings.Contains(gitIn(t, repo, "log", "--oneline", "teamctl/wt/ahead"), "half-done feature") {
		t.Errorf("the unmerged branch was deleted, or its clean worktree kept")
	}
	// What records the kept worktrees stays too.
	for _, p := range []string{teamDir, tasksDir, stDir} {
		if !exists(p) {
			t.Errorf("%s was removed while a worktree it records stays", p)
		}
	}

	// The order, seen in the plan: worktrees, then the team folder, its tasks, the state.
	rep, _ = runClean(t, e, "--force", "--dry-run")
	var order []string
	for _, a := range rep.Actions {
		if len(order) == 0 || order[len(order)-1] != a.Step {
			order = append(order, a.Step)
		}
	}
	if want := []string{"snapshot", "worktree", "branch", "team-folder", "tasks-folder", "state"}; !slices.Equal(order, want) {
		t.Errorf("plan order %v, want %v", order, want)
	}

	rep, res = runClean(t, e, "--force")
	if res.Code != 0 {
		t.Fatalf("clean --force: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	for _, p := range []string{wt("dirty"), wt("ahead"), teamDir, tasksDir, stDir} {
		if exists(p) {
			t.Errorf("%s survived clean --force", p)
		}
	}
	if b := gitIn(t, repo, "branch", "--list"); strings.Contains(b, "teamctl/") {
		t.Errorf("teamctl's branches survived clean --force:\n%s", b)
	}
	// What was not merged is in a snapshot each: ahead's commit, dirty's file.
	snaps := gitIn(t, repo, "for-each-ref", "--format=%(refname)", "refs/teamctl/snapshots/")
	for _, m := range []string{"dirty", "ahead"} {
		if !strings.Contains(snaps, "refs/teamctl/snapshots/wt/"+m+"/") {
			t.Errorf("no snapshot of %s:\n%s", m, snaps)
		}
	}
	if got := gitIn(t, repo, "log", "--format=%s", "--all"); !strings.Contains(got, "half-done feature") {
		t.Errorf("the unmerged commit is gone:\n%s", got)
	}
	if l := gitIn(t, repo, "worktree", "list", "--porcelain"); strings.Count(l, "worktree ") != 1 {
		t.Errorf("git still lists worktrees:\n%s", l)
	}
	for _, p := range []string{filepath.Join(repo, "src", "main.go"), filepath.Join(repo, ".git")} {
		if !exists(p) {
			t.Errorf("the repository lost %s", p)
		}
	}
	res = e.MustRun("clean")
	if !strings.Contains(res.Stdout, "nothing to clean") {
		t.Errorf("second clean:\n%s", res.Stdout)
	}
}

// TestCleanReapsACrashedTeamAndSparesARunningOne: a team whose processes were
// all SIGKILLed leaves a tmux server with dead panes: clean reaps it and its
// folders (a symlink planted in its team folder is not followed), while a team
// running beside it keeps every member, pane and file, losing only a pane no
// member owns.
func TestCleanReapsACrashedTeamAndSparesARunningOne(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	body := "members:\n  - name: worker\n    command: [sleep, \"600\"]\n  - name: mate\n    prompt: hello\n"
	keep := standInLayout(e, "keep.yaml", "team: keep\n"+body)
	crash := standInLayout(e, "crash.yaml", "team: crash\n"+body)
	e.MustRun("up", keep)
	e.MustRun("up", crash)
	before := getStatus(t, e, "keep")

	// A pane nobody owns on the running team's server.
	// Its shell starts a process in a session of its own, which kill-pane's
	// hangup would not reach: only ending the pane's process tree does.
	out, err := e.Tmux("teamctl-keep", "split-window", "-d", "-P", "-F", "#{pane_id} #{pane_pid}", "-t", "=keep:", "sh", "-c", "setsid sleep 703 & wait")
	if err != nil {
		t.Fatalf("split-window: %v %s", err, out)
	}
	var strayPane string
	var strayPID, detached int
	fmt.Sscanf(out, "%s %d", &strayPane, &strayPID)
	testenv.Eventually(t, 10*time.Second, "the stray pane's detached child", func() (bool, string) {
		tree := proc.Tree(strayPID)
		if len(tree) < 2 {
			return false, fmt.Sprint(tree)
		}
		detached = tree[len(tree)-1]
		return true, ""
	})

	// The worker leaves the running team's layout (it keeps running until clean).
	var workerPID int
	for _, m := range before.Members {
		if m.Name == "worker" {
			workerPID = m.PID
		}
	}
	e.WriteFile("keep.yaml", strings.Replace(mustRead(t, keep), "  - name: worker\n    command: [sleep, \"600\"]\n", "", 1))
	before = getStatus(t, e, "keep")

	// Crash: every process of the team SIGKILLed, its supervisor too.
	var cs stateFile
	json.Unmarshal([]byte(mustRead(t, filepath.Join(e.StateHome, "teamctl", "crash", "state.json"))), &cs)
	var sup struct {
		Supervisor struct{ PID int } `json:"supervisor"`
	}
	json.Unmarshal([]byte(e.MustRun("status", "--json", "--team", "crash").Stdout), &sup)
	if sup.Supervisor.PID <= 0 {
		t.Fatal("crash has no supervisor to kill")
	}
	syscall.Kill(sup.Supervisor.PID, syscall.SIGKILL)
	crashed := getStatus(t, e, "crash")
	for _, m := range crashed.Members {
		syscall.Kill(m.PID, syscall.SIGKILL)
	}
	testenv.Eventually(t, 10*time.Second, "crash's panes dead", func() (bool, string) {
		out, _ := e.Tmux("teamctl-crash", "list-panes", "-a", "-F", "#{pane_dead}")
		return strings.Count(out, "1") == len(crashed.Members), out
	})
	// Something that must survive, linked from inside the crashed team's folder.
	outside := filepath.Join(e.Dir, "outside")
	os.MkdirAll(outside, 0o700)
	os.WriteFile(filepath.Join(outside, "precious.txt"), []byte("keep me"), 0o600)
	crashTeam := filepath.Join(e.ClaudeDir, "teams", cs.ClaudeTeam)
	if err := os.Symlink(outside, filepath.Join(crashTeam, "link")); err != nil {
		t.Fatal(err)
	}

	rep, res := runClean(t, e, "--all-teams")
	if res.Code != 0 {
		t.Fatalf("clean: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	var sawServer, sawStray bool
	for _, a := range rep.Actions {
		if a.Team == "keep" && a.Step != "pane" {
			t.Errorf("clean acted on the running team: %+v", a)
		}
		sawServer = sawServer || a.Step == "server" && a.Team == "crash" && a.Result == "done"
		sawStray = sawStray || a.Step == "pane" && a.Team == "keep" && strings.HasPrefix(a.Target, strayPane) && a.Result == "done"
	}
	if !sawServer || !sawStray {
		t.Errorf("report lacks the crashed server or the stray pane: %+v", rep.Actions)
	}
	if _, err := e.Tmux("teamctl-crash", "list-panes", "-a"); err == nil {
		t.Error("the crashed team's tmux server is still up")
	}
	if exists(filepath.Join(e.TmuxTmpDir, fmt.Sprintf("tmux-%d", os.Getuid()), "teamctl-crash")) {
		t.Error("the crashed team's socket file is left")
	}
	if exists(crashTeam) || exists(filepath.Join(e.StateHome, "teamctl", "crash")) {
		t.Error("the crashed team's folders are left")
	}
	if b, err := os.ReadFile(filepath.Join(outside, "precious.txt")); err != nil || string(b) != "keep me" {
		t.Errorf("clean followed a symlink out of the team folder: %v", err)
	}
	if proc.Alive(strayPID) || proc.Alive(detached) || proc.Alive(workerPID) {
		t.Errorf("still running: the stray pane's shell %v, its detached child %v, the worker no longer in the layout %v", proc.Alive(strayPID), proc.Alive(detached), proc.Alive(workerPID))
	}

	after := getStatus(t, e, "keep")
	var kept []string
	for _, m := range before.Members {
		if m.Name != "worker" {
			kept = append(kept, m.Name)
		}
	}
	if len(after.Members) != len(kept) {
		t.Fatalf("running team's members after clean: %+v, want %v", after.Members, kept)
	}
	was := map[string]int{} // name → index in before
	for i, m := range before.Members {
		was[m.Name] = i
	}
	for i, m := range after.Members {
		b := before.Members[was[m.Name]]
		if m.Name != kept[i] || m.Pane != b.Pane || m.PID != b.PID || !proc.Alive(m.PID) {
			t.Errorf("running team's member %s changed: %+v, was %+v", m.Name, m, b)
		}
	}
	var ks stateFile
	json.Unmarshal([]byte(mustRead(t, filepath.Join(e.StateHome, "teamctl", "keep", "state.json"))), &ks)
	if !exists(filepath.Join(e.ClaudeDir, "teams", ks.ClaudeTeam, "config.json")) {
		t.Error("the running team's Claude Code team config is gone")
	}
}

// TestDoctorWarnsOfUntrustedFolders: with a layout, doctor tells which Claude
// Code members would stop at the trust dialog; trust: true (recorded by up) and
// a trusted repository make the warning go.
func TestDoctorWarnsOfUntrustedFolders(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	// A program named claude, as Claude Code is (the stand-in under its own
	// name meets no trust dialog, and nothing is said of it).
	claude := e.WriteExecutable("bin/claude", fmt.Sprintf("#!/bin/sh\nexec %q stand-in \"$@\"\n", e.Bin))
	e.Extra = append(e.Extra, "TEAMCTL_CLAUDE="+claude)
	repo := gitRepo(t, e, "repo")
	body := "root: repo\nworktrees: ../elsewhere\nmembers:\n  - name: wt\n    worktree: true\n  - name: plain\n    cwd: src\n"
	head := fmt.Sprintf("claude:\n  command: %q\n", claude)
	untrusted := e.WriteFile("a.yaml", head+"team: a\n"+body)
	byUp := e.WriteFile("b.yaml", head+"team: b\ntrust: true\n"+body)
	doctor := func(layout string) map[string]string {
		r := e.Run("doctor", "--json", layout)
		var checks []struct {
			Name, Detail string
			OK, Warn     bool
		}
		if err := json.Unmarshal([]byte(r.Stdout), &checks); err != nil {
			t.Fatal(err, r.Stdout, r.Stderr)
		}
		out := map[string]string{}
		for _, c := range checks {
			if strings.HasPrefix(c.Name, "trust ") {
				out[strings.TrimPrefix(c.Name, "trust ")] = fmt.Sprintf("warn=%v %s", c.Warn, c.Detail)
			}
		}
		return out
	}
	got := doctor(untrusted)
	for _, m := range []string{"lead", "wt", "plain"} {
		if !strings.HasPrefix(got[m], "warn=true") || !strings.Contains(got[m], "not trusted") {
			t.Errorf("untrusted %s: %q", m, got[m])
		}
	}
	if !strings.Contains(got["wt"], filepath.Join(e.Work, "elsewhere", "a", "wt")) {
		t.Errorf("wt's folder is not its worktree: %q", got["wt"])
	}
	if got := doctor(byUp); !strings.HasPrefix(got["wt"], "warn=false") || !strings.Contains(got["wt"], "up records it") {
		t.Errorf("with trust: true: %q", got["wt"])
	}
	// up says the same of every member that will meet the dialog, not only
	// of the worktree member.
	r := e.MustRun("up", untrusted)
	for _, want := range []string{
		"Claude Code does not trust " + filepath.Join(e.Work, "repo") + " yet: lead will stop at its trust dialog",
		"Claude Code does not trust " + filepath.Join(e.Work, "repo", "src") + " yet: plain will stop at its trust dialog",
		"wt's worktree " + filepath.Join(e.Work, "elsewhere", "a", "wt") + " is not trusted by Claude Code",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("up of the untrusted layout does not say %q:\n%s", want, r.Stdout)
		}
	}
	e.MustRun("down", "--team", "a", "--now")
	// The stand-in under its own name (teamctl demo's) is said nothing of.
	e.Extra = append(e.Extra, "TEAMCTL_CLAUDE=") // the layout's own claude.command
	if r := e.MustRun("up", standInLayout(e, "c.yaml", "team: c\n"+body)); strings.Contains(r.Stdout, "trust dialog") || strings.Contains(r.Stdout, "not trusted") {
		t.Errorf("up of a stand-in team speaks of Claude Code's trust dialog:\n%s", r.Stdout)
	}
	// up with trust: true records the worktree as trusted, keeping the rest.
	os.MkdirAll(e.ClaudeDir, 0o700)
	os.WriteFile(filepath.Join(e.ClaudeDir, ".claude.json"), []byte(`{"numStartups": 3}`), 0o600)
	e.MustRun("up", byUp)
	var cfg struct {
		NumStartups int                       `json:"numStartups"`
		Projects    map[string]map[string]any `json:"projects"`
	}
	json.Unmarshal([]byte(mustRead(t, filepath.Join(e.ClaudeDir, ".claude.json"))), &cfg)
	wtDir := filepath.Join(e.Work, "elsewhere", "b", "wt")
	if cfg.Projects[wtDir]["hasTrustDialogAccepted"] != true || cfg.NumStartups != 3 || len(cfg.Projects) != 1 {
		t.Errorf("Claude Code's config after up: %+v", cfg)
	}
	if got := doctor(byUp); !strings.HasPrefix(got["wt"], "warn=false") || !strings.Contains(got["wt"], "is trusted") {
		t.Errorf("after up: %q", got["wt"])
	}

	// As Claude Code decides: a trusted folder above a repository does not
	// cover it; a trusted repository covers its folders and its worktrees,
	// wherever they are.
	trust := func(dir string) {
		os.WriteFile(filepath.Join(e.ClaudeDir, ".claude.json"), []byte(fmt.Sprintf(`{"projects": {%q: {"hasTrustDialogAccepted": true}}}`, dir)), 0o600)
	}
	trust(e.Work)
	if got := doctor(untrusted); !strings.HasPrefix(got["lead"], "warn=true") || !strings.HasPrefix(got["wt"], "warn=true") {
		t.Errorf("with the folder above the repository trusted: %v", got)
	}
	trust(repo)
	if got := doctor(untrusted); !strings.HasPrefix(got["lead"], "warn=false") || !strings.HasPrefix(got["plain"], "warn=false") || !strings.HasPrefix(got["wt"], "warn=false") {
		t.Errorf("with the repository trusted: %v", got)
	}
}

// TestCleanAllReapsClaudeCodesOwnLeftovers: with --all, a claude-swarm-<pid>
// server whose lead is gone is reaped, and a Claude Code team folder whose
// lead died is listed, and removed (with its tasks) only with --force. The
// worktree its config names stays, --force or not: nothing but that config
// (which any agent can write) says it is the team's. A team whose lead runs
// is never touched.
func TestCleanAllReapsClaudeCodesOwnLeftovers(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := gone.Process.Pid
	swarm := fmt.Sprintf("claude-swarm-%d", dead)
	if out, err := e.Tmux(swarm, "new-session", "-d", "-s", "claude-swarm", "sleep", "601"); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	out, _ := e.Tmux(swarm, "list-panes", "-a", "-F", "#{pane_pid}")
	var sleeper int
	fmt.Sscanf(out, "%d", &sleeper)

	repo := gitRepo(t, e, "repo")
	wt := filepath.Join(repo, ".claude", "worktrees", "ghost-mate")
	gitIn(t, repo, "worktree", "add", "-q", "-b", "worktree-ghost-mate", wt)
	team := func(name string, pid int, worktree string) (string, string) {
		dir := filepath.Join(e.ClaudeDir, "teams", name)
		tasks := filepath.Join(e.ClaudeDir, "tasks", name)
		os.MkdirAll(dir, 0o700)
		os.MkdirAll(tasks, 0o700)
		os.WriteFile(filepath.Join(tasks, "1.json"), []byte(`{"id":"1"}`), 0o600)
		cfg := fmt.Sprintf(`{"name": %q, "leadProcess": {"pid": %d}, "members": [{"name": "team-lead"}, {"name": "mate", "worktreePath": %q}]}`, name, pid, worktree)
		os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o600)
		return dir, tasks
	}
	ghostDir, ghostTasks := team("ghost", dead, wt)
	liveDir, liveTasks := team("alive", os.Getpid(), "")

	rep, res := runClean(t, e, "--all")
	if res.Code != 0 {
		t.Fatalf("clean --all: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	if _, err := e.Tmux(swarm, "list-panes", "-a"); err == nil {
		t.Error("the swarm server of a gone lead is still up")
	}
	if proc.Alive(sleeper) {
		t.Error("the swarm server's pane process still runs")
	}
	if ents, _ := os.ReadDir(filepath.Join(e.StateHome, "teamctl")); len(ents) != 0 {
		t.Errorf("clean made state folders: %v", ents)
	}
	listed := false
	for _, a := range rep.Actions {
		if a.Target == ghostDir {
			listed = a.Result == "kept" && strings.Contains(a.Detail, "--force")
		}
		if a.Target == liveDir {
			t.Errorf("a team whose lead runs was listed: %+v", a)
		}
	}
	if !listed || !exists(ghostDir) || !exists(wt) {
		t.Errorf("without --force the dead lead's team must be listed and kept: %+v", rep.Actions)
	}

	if rep, res = runClean(t, e, "--all", "--force"); res.Code != 0 {
		t.Fatalf("clean --all --force: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	for _, p := range []string{ghostDir, ghostTasks} {
		if exists(p) {
			t.Errorf("%s survived clean --all --force", p)
		}
	}
	kept := false
	for _, a := range rep.Actions {
		if a.Target == wt {
			kept = a.Result == "kept" && strings.Contains(a.Detail, notOurs)
		}
	}
	if !kept || !exists(filepath.Join(wt, "src", "main.go")) || !strings.Contains(gitIn(t, repo, "worktree", "list"), wt) {
		t.Errorf("the worktree only a dead lead's config names must be kept as not the team's: %+v", rep.Actions)
	}
	for _, p := range []string{liveDir, liveTasks} {
		if !exists(p) {
			t.Errorf("%s of a running lead was removed", p)
		}
	}
}

// TestCleanLeavesAPaneTheSupervisorWillRestart: in a running team, the dead
// pane of a member that exited for good (restart: never) is an orphan; the
// dead pane of one waiting out its restart backoff is not.
func TestCleanLeavesAPaneTheSupervisorWillRestart(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.MustRun("up", standInLayout(e, "team.yaml", `team: backoff
lead: {}
members:
  - name: done
    command: ["true"]
    restart: never
  - name: flaky
    command: [sh, -c, "exit 1"]
`))
	var flakyPane, donePane string
	var flakyRestarts int
	testenv.Eventually(t, 20*time.Second, "flaky exited again after 2 restarts (now in a 4 s backoff), done exited", func() (bool, string) {
		s := getStatus(t, e, "backoff")
		ok := 0
		for _, m := range s.Members {
			switch {
			case m.Name == "flaky" && m.Restarts >= 2 && m.State == "exited":
				flakyPane, flakyRestarts = m.Pane, m.Restarts
				ok++
			case m.Name == "done" && m.State == "exited":
				donePane = m.Pane
				ok++
			}
		}
		return ok == 2, fmt.Sprintf("%+v", s.Members)
	})
	rep, res := runClean(t, e)
	if res.Code != 0 {
		t.Fatalf("clean: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	var reaped []string
	for _, a := range rep.Actions {
		reaped = append(reaped, a.Target)
	}
	if !slices.ContainsFunc(reaped, func(s string) bool { return strings.HasPrefix(s, donePane+" ") || s == donePane }) {
		t.Errorf("the pane of done (restart: never) was not reaped: %v", reaped)
	}
	if slices.ContainsFunc(reaped, func(s string) bool { return strings.HasPrefix(s, flakyPane+" ") || s == flakyPane }) {
		t.Errorf("clean reaped flaky's pane, which the supervisor restarts: %v", reaped)
	}
	// Still there, unless its backoff ran out while clean worked (a loaded
	// machine): then the supervisor restarted flaky in a new pane in its place.
	if out, _ := e.Tmux("teamctl-backoff", "list-panes", "-a", "-F", "#{pane_id}"); !strings.Contains(out, flakyPane+"\n") {
		for _, m := range getStatus(t, e, "backoff").Members {
			if m.Name == "flaky" && (m.Restarts <= flakyRestarts || !strings.Contains(out, m.Pane+"\n")) {
				t.Errorf("flaky's pane %s is gone, and the supervisor did not restart it (%+v):\n%s", flakyPane, m, out)
			}
		}
	}
}
