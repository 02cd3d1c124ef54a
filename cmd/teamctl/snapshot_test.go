package main_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/internal/testenv"
)

// snapshotList mirrors `teamctl snapshots --json`.
type snapshotList []struct {
	Name, Team, Member, Ref, Commit, Summary, Repo string
}

func listSnapshots(t *testing.T, e *testenv.Env, args ...string) snapshotList {
	t.Helper()
	r := e.MustRun(append([]string{"snapshots", "--json"}, args...)...)
	var l snapshotList
	if err := json.Unmarshal([]byte(r.Stdout), &l); err != nil {
		t.Fatalf("snapshots --json: %v\n%s%s", err, r.Stdout, r.Stderr)
	}
	return l
}

// folderFiles maps every file under dir but .git to its exec bit and bytes
// (a link to its target): what a person would compare.
func folderFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case rel == ".git":
			return nil
		case d.IsDir():
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
			return nil
		}
		fi, _ := d.Info()
		b, err := os.ReadFile(p)
		out[rel] = map[bool]string{true: "exec ", false: "file "}[fi.Mode()&0o100 != 0] + string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameFiles reports how two folders' files differ, "" when they do not.
func sameFiles(want, got map[string]string) string {
	var diff []string
	for name, w := range want {
		if g, ok := got[name]; !ok {
			diff = append(diff, "missing "+strings.ReplaceAll(name, "\n", `\n`))
		} else if g != w {
			diff = append(diff, "differs "+strings.ReplaceAll(name, "\n", `\n`))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			diff = append(diff, "extra "+strings.ReplaceAll(name, "\n", `\n`))
		}
	}
	slices.Sort(diff)
	return strings.Join(diff, "; ")
}

// lsFiles is what git lists in a checkout, NUL-separated, sorted: tracked
// files, and with others untracked ones that are not ignored.
func lsFiles(t *testing.T, dir string, others bool) []string {
	t.Helper()
	args := []string{"ls-files", "-z", "--cached"}
	if others {
		args = append(args, "--others", "--exclude-standard")
	}
	l := strings.Split(strings.TrimSuffix(gitIn(t, dir, args...), "\x00"), "\x00")
	slices.Sort(l)
	return slices.Compact(l)
}

// TestCleanKeepsAnUnmergedBranch: a stopped team whose member's worktree is
// clean but whose branch has commits not merged is cleaned all the same
// (exit 0): the worktree and the team's record go, the branch stays, named
// with its count of commits, in the plan (a kind of its own in --json) and
// in the report; the team is gone from `teamctl teams`. No snapshot is taken
// without --force.
func TestCleanKeepsAnUnmergedBranch(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	repo := gitRepo(t, e, "repo")
	e.MustRun("up", standInLayout(e, "team.yaml", "team: auth-fix\nroot: repo\nlead: {}\nmembers:\n  - name: alice\n    command: [sleep, \"600\"]\n    worktree: true\n"))
	wt := filepath.Join(repo, ".teamctl", "worktrees", "auth-fix", "alice")
	for _, m := range []string{"first step", "second step"} {
		gitIn(t, wt, "commit", "-q", "--allow-empty", "-m", m)
	}
	e.MustRun("down", "--team", "auth-fix", "--now")
	const said = "kept branch teamctl/auth-fix/alice: 2 commits not merged into main (git merge teamctl/auth-fix/alice, or git branch -D teamctl/auth-fix/alice)"

	rep, res := runClean(t, e, "auth-fix", "--dry-run")
	kind := ""
	for _, a := range rep.Actions {
		if a.Step == "branch" && a.Target == "teamctl/auth-fix/alice" {
			kind = a.Result + ": " + a.Detail
		}
	}
	if res.Code != 0 || kind != "kept-branch: "+said {
		t.Errorf("dry run: exit %d, the branch's action %q, want kept-branch: %s\n%s", res.Code, kind, said, res.Stdout)
	}

	res = e.Run("clean", "auth-fix")
	t.Logf("clean:\n%s", res.Stdout)
	if res.Code != 0 || !strings.Contains(res.Stdout, said) {
		t.Errorf("clean: exit %d, want 0 and %q\n%s%s", res.Code, said, res.Stdout, res.Stderr)
	}
	if exists(wt) {
		t.Error("the clean worktree is left")
	}
	if log := gitIn(t, repo, "log", "--format=%s", "teamctl/auth-fix/alice"); !strings.Contains(log, "first step") || !strings.Contains(log, "second step") {
		t.Errorf("the branch lost its commits:\n%s", log)
	}
	if exists(filepath.Join(e.StateHome, "teamctl", "auth-fix")) {
		t.Error("the team's state is left")
	}
	if r := e.MustRun("teams"); strings.Contains(r.Stdout, "auth-fix") {
		t.Errorf("teams still lists the team:\n%s", r.Stdout)
	}
	if refs := gitIn(t, repo, "for-each-ref", "refs/teamctl/"); refs != "" {
		t.Errorf("a snapshot without --force:\n%s", refs)
	}
	if r := e.MustRun("clean", "--yes"); !strings.Contains(r.Stdout, "nothing to clean") {
		t.Errorf("clean again:\n%s", r.Stdout)
	}
}

// TestCleanForceKeepsASnapshotAndRestoreBringsItBack: clean --force of a
// team whose member has a commit not merged, a staged file, an unstaged
// change and untracked files (a space and a newline in names, a name that is
// not UTF-8, a binary file) removes the worktree and the branch after
// keeping all of it in a snapshot, says where and how to bring it back;
// `teamctl snapshots` lists it from outside the repository; `teamctl
// restore` brings back every file byte for byte on a new branch, and
// refuses a folder that exists. Plain clean never removes a snapshot;
// clean --snapshots --older-than removes only older ones, --snapshots all.
func TestCleanForceKeepsASnapshotAndRestoreBringsItBack(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	repo := gitRepo(t, e, "repo")
	e.MustRun("up", standInLayout(e, "team.yaml", "team: snap\nroot: repo\nlead: {}\nmembers:\n  - name: bob\n    command: [sleep, \"600\"]\n    worktree: true\n"))
	wt := filepath.Join(repo, ".teamctl", "worktrees", "snap", "bob")
	write := func(name string, b []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(wt, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("committed.txt", []byte("on the branch\n"))
	gitIn(t, wt, "add", "committed.txt")
	gitIn(t, wt, "commit", "-q", "-m", "half-done feature")
	write("staged.txt", []byte("staged\n"))
	gitIn(t, wt, "add", "staged.txt")
	write(filepath.Join("src", "main.go"), []byte("package main\n\n// not committed\n"))
	binary := make([]byte, 512)
	for i := range binary {
		binary[i] = byte(i)
	}
	write("image.bin", binary)
	for _, name := range []string{"with space.txt", "new\nline.txt", "caf\xe9.txt"} {
		write(name, []byte("untracked "+name))
	}
	want := folderFiles(t, wt)
	wantListed := lsFiles(t, wt, true)
	e.MustRun("down", "--team", "snap", "--now")

	if _, res := runClean(t, e, "snap"); res.Code != 1 || !exists(filepath.Join(wt, "new\nline.txt")) {
		t.Fatalf("clean without --force: exit %d (want 1, refused), worktree kept %v", res.Code, exists(wt))
	}

	rep, res := runClean(t, e, "snap", "--force")
	if res.Code != 0 {
		t.Fatalf("clean --force: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	var name string
	for _, a := range rep.Actions {
		if a.Step == "snapshot" {
			if a.Result != "done" || !strings.HasPrefix(a.Target, "refs/teamctl/snapshots/snap/bob/") || !strings.Contains(a.Detail, "in "+repo) {
				t.Errorf("snapshot action %+v", a)
			}
			name = strings.TrimPrefix(a.Target, "refs/teamctl/snapshots/")
			if !strings.Contains(a.Detail, "teamctl restore "+name) {
				t.Errorf("the report does not say how to bring it back: %s", a.Detail)
			}
		}
	}
	if name == "" {
		t.Fatalf("no snapshot in the report: %+v", rep.Actions)
	}
	if exists(wt) || gitIn(t, repo, "branch", "--list", "teamctl/*") != "" || exists(filepath.Join(e.StateHome, "teamctl", "snap")) {
		t.Errorf("clean --force left the worktree, the branch or the state")
	}
	if gitIn(t, repo, "rev-parse", "refs/teamctl/snapshots/"+name) == "" {
		t.Fatal("no snapshot ref")
	}

	// Listed from outside the repository (the test runs teamctl in e.Work).
	l := listSnapshots(t, e)
	if len(l) != 1 || l[0].Name != name || l[0].Team != "snap" || l[0].Member != "bob" || l[0].Repo != repo || len(l[0].Commit) != 40 || !strings.Contains(l[0].Summary, "uncommitted") {
		t.Errorf("snapshots: %+v", l)
	}
	if r := e.MustRun("snapshots"); !strings.Contains(r.Stdout, name) || !strings.Contains(r.Stdout, repo) {
		t.Errorf("snapshots:\n%s", r.Stdout)
	}
	if l := listSnapshots(t, e, "--team", "other"); len(l) != 0 {
		t.Errorf("snapshots --team other: %+v", l)
	}

	// Restored by a prefix of its name, into the repository's .teamctl/restored.
	r := e.MustRun("restore", "snap/bob")
	restored := filepath.Join(repo, ".teamctl", "restored", filepath.FromSlash(name))
	branch := "teamctl-restored/" + name
	if !strings.Contains(r.Stdout, restored) || !strings.Contains(r.Stdout, branch) {
		t.Errorf("restore:\n%s", r.Stdout)
	}
	if diff := sameFiles(want, folderFiles(t, restored)); diff != "" {
		t.Errorf("restored files differ from the worktree's: %s", diff)
	}
	if got := lsFiles(t, restored, false); !slices.Equal(got, wantListed) {
		t.Errorf("git ls-files of the restored worktree:\n%q\nwant (the worktree's, untracked included):\n%q", got, wantListed)
	}
	if log := gitIn(t, restored, "log", "--format=%s", branch); !strings.Contains(log, "half-done feature") {
		t.Errorf("the restored branch lacks the member's commit:\n%s", log)
	}
	if st := gitIn(t, repo, "status", "--porcelain"); st != "" {
		t.Errorf("the repository shows the restored folder: %q", st)
	}
	if r := e.Run("restore", name, restored); r.Code != 1 || !strings.Contains(r.Stderr, "exists") {
		t.Errorf("restore onto an existing folder: exit %d\n%s", r.Code, r.Stderr)
	}
	if r := e.Run("restore", "nosuch"); r.Code != 1 || !strings.Contains(r.Stderr, `no snapshot "nosuch"`) {
		t.Errorf("restore of no snapshot: exit %d\n%s", r.Code, r.Stderr)
	}

	// A plain clean never removes a snapshot, nor the restored worktree.
	e.MustRun("clean", "--yes")
	if l := listSnapshots(t, e); len(l) != 1 || !exists(restored) {
		t.Errorf("after a plain clean: %+v, restored folder there: %v", l, exists(restored))
	}

	// One from long ago beside it: --older-than takes only that one.
	old := "refs/teamctl/snapshots/snap/bob/20200101T000000Z"
	gitIn(t, repo, "update-ref", old, "main")
	rep, _ = runClean(t, e, "--snapshots", "--older-than", "30d", "--dry-run")
	if len(rep.Actions) != 1 || rep.Actions[0].Target != old || rep.Actions[0].Step != "snapshot-ref" || rep.Actions[0].Result != "planned" {
		t.Errorf("clean --snapshots --older-than 30d --dry-run: %+v", rep.Actions)
	}
	if l := listSnapshots(t, e); len(l) != 2 {
		t.Errorf("a dry run removed a snapshot: %+v", l)
	}
	for _, args := range [][]string{{"clean", "--older-than", "30d"}, {"clean", "--snapshots", "--older-than", "soon"}, {"clean", "--snapshots", "--force"}} {
		if r := e.Run(args...); r.Code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, r.Code, r.Stderr)
		}
	}
	if _, res := runClean(t, e, "--snapshots", "--older-than", "30d"); res.Code != 0 {
		t.Errorf("clean --snapshots --older-than 30d: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	if l := listSnapshots(t, e); len(l) != 1 || l[0].Name != name {
		t.Errorf("after clean --snapshots --older-than 30d: %+v", l)
	}
	if _, res := runClean(t, e, "--snapshots"); res.Code != 0 {
		t.Errorf("clean --snapshots: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	if l := listSnapshots(t, e); len(l) != 0 {
		t.Errorf("after clean --snapshots: %+v", l)
	}
	if !exists(filepath.Join(restored, "image.bin")) || gitIn(t, repo, "branch", "--list", branch) == "" {
		t.Error("clean --snapshots removed the restored worktree or its branch")
	}
}

// TestRestoreFromInsideTheRepository: the `teamctl restore` command clean
// --force prints works as printed when run in the repository's main
// checkout and in a folder of it, where the repository is found both as
// the current folder's and as the one clean recorded (one repository,
// however it is named); `teamctl snapshots` there lists each snapshot once.
func TestRestoreFromInsideTheRepository(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	repo := gitRepo(t, e, "repo")
	e.MustRun("up", standInLayout(e, "team.yaml", "team: inside\nroot: repo\nmembers:\n  - name: bob\n    command: [sleep, \"600\"]\n    worktree: true\n  - name: carol\n    command: [sleep, \"600\"]\n    worktree: true\n"))
	for _, m := range []string{"bob", "carol"} {
		wt := filepath.Join(repo, ".teamctl", "worktrees", "inside", m)
		if err := os.WriteFile(filepath.Join(wt, m+".txt"), []byte(m+"'s work\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.MustRun("down", "--team", "inside", "--now")
	res := e.MustRun("clean", "inside", "--force", "--yes")
	var cmds []string
	for _, line := range strings.Split(res.Stdout, "\n") {
		if _, after, ok := strings.Cut(line, "`teamctl restore "); ok {
			name, _, _ := strings.Cut(after, "`")
			cmds = append(cmds, name)
		}
	}
	if len(cmds) != 2 {
		t.Fatalf("clean --force printed %d restore commands, want 2:\n%s", len(cmds), res.Stdout)
	}
	in := func(dir string) *testenv.Env { c := *e; c.Work = dir; return &c }
	sub := filepath.Join(repo, "src")

	for _, dir := range []string{repo, sub} {
		r := in(dir).MustRun("snapshots", "--json")
		var l snapshotList
		if err := json.Unmarshal([]byte(r.Stdout), &l); err != nil {
			t.Fatal(err)
		}
		if len(l) != 2 || l[0].Repo != repo || l[1].Repo != repo {
			t.Errorf("snapshots in %s: %+v, want the 2 snapshots once each, in %s", dir, l, repo)
		}
	}
	for i, dir := range []string{repo, sub} {
		r := in(dir).Run("restore", cmds[i])
		if r.Code != 0 {
			t.Errorf("teamctl restore %s in %s: exit %d\n%s%s", cmds[i], dir, r.Code, r.Stdout, r.Stderr)
			continue
		}
		restored := filepath.Join(repo, ".teamctl", "restored", filepath.FromSlash(cmds[i]))
		member := strings.Split(cmds[i], "/")[1]
		if b, err := os.ReadFile(filepath.Join(restored, member+".txt")); err != nil || string(b) != member+"'s work\n" {
			t.Errorf("restored in %s: %s.txt %q, %v", dir, member, b, err)
		}
	}
}
