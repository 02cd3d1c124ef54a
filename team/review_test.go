package team

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// Diff and Conflicts against real git: a team brought up in the fake world
// (fake tmux, real worktrees) on a repository whose main checkout holds a
// person's uncommitted work.

const tenLines = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"

// gitT runs git in dir for a test, as a person would, and returns its output.
func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.invalid", "-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func writeT(t *testing.T, dir, name, body string) {
	t.Helper()
	p := filepath.Join(dir, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// reviewTeam brings up team "rev" in f: the lead and c in the repository's
// main checkout (no worktree), a and b in worktrees on branches from dev, d
// in a folder of no repository.
// The main checkout has a person's uncommitted edit and untracked file.
func reviewTeam(t *testing.T, f *fakeWorld) (repo string, wt func(string) string) {
	t.Helper()
	repo = filepath.Join(f.dir, "repo")
	writeT(t, repo, "app.go", tenLines)
	writeT(t, repo, "src/keep.go", "package src\n")
	gitT(t, repo, "init", "-q", "-b", "main")
	gitT(t, repo, "add", ".")
	gitT(t, repo, "commit", "-q", "-m", "first")
	gitT(t, repo, "branch", "dev")
	writeT(t, repo, "app.go", strings.Replace(tenLines, "9\n", "nine, a person's edit\n", 1))
	writeT(t, repo, "person's notes.txt", "mine\n")
	plain := filepath.Join(f.dir, "plain")
	os.MkdirAll(plain, 0o755)
	f.up(f.layout("team.yaml", `team: rev
lead: {}
root: `+repo+`
members:
  - name: a
    command: [sleep, "1000"]
    worktree: {base: dev}
  - name: b
    command: [sleep, "1000"]
    worktree: {base: dev}
  - name: c
    command: [sleep, "1000"]
    cwd: src
  - name: d
    command: [sleep, "1000"]
    cwd: `+plain+`
`))
	return repo, func(m string) string { return filepath.Join(repo, worktrees.DefaultFolder, "rev", m) }
}

// checkouts records the index (bytes) and status of checkouts, and returns
// a check that they are as they were.
func checkouts(t *testing.T, dirs ...string) func() {
	t.Helper()
	read := func(d string) string {
		gitdir := filepath.Join(d, ".git")
		if b, err := os.ReadFile(gitdir); err == nil {
			gitdir = strings.TrimSpace(strings.TrimPrefix(string(b), "gitdir: "))
		}
		index, err := os.ReadFile(filepath.Join(gitdir, "index"))
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(filepath.Join(gitdir, "index"))
		cmd := exec.Command("git", "-C", d, "status", "--porcelain=v1", "-z", "--untracked-files=all")
		cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
		status, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(index) + "\x00" + fi.ModTime().String() + "\x00" + string(status)
	}
	before := map[string]string{}
	for _, d := range dirs {
		before[d] = read(d)
	}
	return func() {
		t.Helper()
		for _, d := range dirs {
			if after := read(d); !bytes.Equal([]byte(after), []byte(before[d])) {
				t.Errorf("%s: its index or status changed", d)
			}
		}
	}
}

func workOf(ch *Changes, member string) *WorkChanges {
	for i, w := range ch.Work {
		if slices.Contains(w.Members, member) {
			return &ch.Work[i]
		}
	}
	return nil
}

func filesOf(w *WorkChanges) []string {
	var out []string
	for _, f := range w.Files {
		out = append(out, f.Path)
	}
	slices.Sort(out)
	return out
}

// TestDiffOfATeam: each member with a worktree has its commits and
// uncommitted files since its base (awkward names and a binary file among
// them); the lead and c, without one, share the main checkout, shown once
// with the person's uncommitted work; named members only, when named; the
// totals add up; nothing of any checkout changes.
func TestDiffOfATeam(t *testing.T) {
	f := newFakeWorld(t)
	repo, wt := reviewTeam(t, f)
	writeT(t, wt("a"), "feature.go", "package main\n")
	gitT(t, wt("a"), "add", ".")
	gitT(t, wt("a"), "commit", "-q", "-m", "a's feature")
	odd := "new\nline \"quoted\" caf\xe9.txt"
	writeT(t, wt("a"), odd, "odd\n")
	writeT(t, wt("a"), "logo.bin", "\x00\x01\x02\x03")
	writeT(t, wt("b"), "app.go", strings.Replace(tenLines, "5\n", "five by b\n", 1))
	check := checkouts(t, repo, wt("a"), wt("b"))
	tm := f.open("rev")

	ch, err := tm.Diff(f.ctx, nil, DiffStat)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Work) != 4 {
		t.Fatalf("work of %d checkouts, want a's, b's, the shared one and d's folder: %+v", len(ch.Work), ch.Work)
	}
	if d := workOf(ch, "d"); d.Error != "" || len(d.Files) != 0 || len(d.Notes) != 1 || !strings.Contains(d.Notes[0], "is in no git repository: nothing to show") || len(ch.Unread()) != 0 {
		t.Errorf("d, in no repository: %+v", d)
	}
	a, b, root := workOf(ch, "a"), workOf(ch, "b"), workOf(ch, "lead")
	if got := filesOf(a); !slices.Equal(got, []string{"feature.go", "logo.bin", odd}) || a.Commits != 1 || a.Uncommitted != 2 || !a.Worktree || a.Branch != "teamctl/rev/a" || a.Base.Name != "dev" || a.Error != "" {
		t.Errorf("a's work: %q, %+v", got, a)
	}
	for _, fc := range a.Files {
		if fc.Binary != (fc.Path == "logo.bin") {
			t.Errorf("a's %q: binary %v", fc.Path, fc.Binary)
		}
	}
	if got := filesOf(b); !slices.Equal(got, []string{"app.go"}) || b.Added != 1 || b.Deleted != 1 || b.Commits != 0 {
		t.Errorf("b's work: %q, %+v", got, b)
	}
	if root == nil || !slices.Equal(root.Members, []string{"lead", "c"}) || root.Worktree || root.Path != repo || !slices.Equal(filesOf(root), []string{"app.go", "person's notes.txt"}) || len(root.Notes) != 1 || !strings.Contains(root.Notes[0], "no worktree of their own") {
		t.Errorf("the shared checkout: %+v", root)
	}
	if ch.Files != 6 || ch.Added != a.Added+b.Added+root.Added || ch.Deleted != 2 {
		t.Errorf("totals: %d files +%d −%d", ch.Files, ch.Added, ch.Deleted)
	}
	if a.Patch != "" {
		t.Error("a patch read for --stat")
	}

	ch, err = tm.Diff(f.ctx, []string{"c", "b"}, DiffPatch)
	if err != nil || len(ch.Work) != 2 || ch.Work[0].Member != "b" || !slices.Equal(ch.Work[1].Members, []string{"lead", "c"}) {
		t.Fatalf("b and c: %+v, %v", ch, err)
	}
	if p := ch.Work[0].Patch; !strings.Contains(p, "-5\n+five by b\n") {
		t.Errorf("b's patch:\n%s", p)
	}
	if _, err := tm.Diff(f.ctx, []string{"nobody"}, DiffStat); err == nil || !strings.Contains(err.Error(), `team rev has no member "nobody"`) {
		t.Errorf("an unknown member: %v", err)
	}
	check()
}

// TestConflictsOfATeam: a and b editing the same lines of one file conflict
// there, uncommitted; each against dev, which moved since, conflicts where
// dev changed a's line; the members without a worktree are said to be left
// out; nothing of any checkout changes.
func TestConflictsOfATeam(t *testing.T) {
	f := newFakeWorld(t)
	repo, wt := reviewTeam(t, f)
	writeT(t, wt("a"), "app.go", strings.Replace(tenLines, "5\n", "five by a\n", 1))
	writeT(t, wt("a"), "only-a.go", "package main\n")
	writeT(t, wt("b"), "app.go", strings.Replace(tenLines, "5\n", "five by b\n", 1))
	// dev moves, in a worktree of its own: a's and b's line 5, and line 1.
	dev := filepath.Join(f.dir, "dev")
	gitT(t, repo, "worktree", "add", "-q", dev, "dev")
	writeT(t, dev, "app.go", strings.Replace(tenLines, "5\n", "five on dev\n", 1))
	gitT(t, dev, "commit", "-q", "-am", "dev moves")
	check := checkouts(t, repo, wt("a"), wt("b"), dev)

	c, err := f.open("rev").Conflicts(f.ctx)
	var old *worktrees.OldGitError
	if errors.As(err, &old) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Pairs) != 1 || c.Pairs[0].Members != [2]string{"a", "b"} || !slices.Equal(c.Pairs[0].Conflicts, []worktrees.Conflict{{Path: "app.go", Kind: "contents"}}) || !slices.Equal(c.Pairs[0].Both, []string{"app.go"}) {
		t.Errorf("pairs: %+v", c.Pairs)
	}
	if len(c.Bases) != 2 || c.Bases[0].Member != "a" || c.Bases[0].Base != "dev" || c.Bases[0].Moved != 1 || len(c.Bases[0].Conflicts) != 1 || c.Bases[0].Conflicts[0].Path != "app.go" {
		t.Errorf("against their base: %+v", c.Bases)
	}
	if want := []Skipped{{"lead", "no worktree of its own"}, {"c", "no worktree of its own"}, {"d", "no worktree of its own"}}; !slices.Equal(c.Skipped, want) {
		t.Errorf("skipped %+v, want %+v", c.Skipped, want)
	}
	if !c.Found() || c.Failed() {
		t.Errorf("Found() = %v, Failed() = %v", c.Found(), c.Failed())
	}
	check()

	// b reverts: it has no work of its own, none that is not in dev: out of
	// every pair; a's conflict with dev stays.
	gitT(t, wt("b"), "checkout", "--", "app.go")
	c, err = f.open("rev").Conflicts(f.ctx)
	if err != nil || len(c.Pairs) != 0 || len(c.Bases) != 1 || c.Bases[0].Member != "a" || len(c.Bases[0].Conflicts) != 1 ||
		!slices.Contains(c.Skipped, Skipped{"b", "its work is all in dev already"}) {
		t.Errorf("after b reverted: %+v, %v", c, err)
	}
}

// TestReviewOfWhatAgentsLeave: a worktree deleted by hand is its branch's
// commits, said; a detached HEAD whose branch the agent deleted is read and
// said; a hostile branch name in state.json never reaches git, and the work
// it names is an error of its own, the others read; with the branch gone as
// well as the folder, nothing is left, said.
func TestReviewOfWhatAgentsLeave(t *testing.T) {
	f := newFakeWorld(t)
	repo, wt := reviewTeam(t, f)
	writeT(t, wt("a"), "a.go", "package main\n")
	gitT(t, wt("a"), "add", ".")
	gitT(t, wt("a"), "commit", "-q", "-m", "a's work")
	os.RemoveAll(wt("a"))
	gitT(t, wt("b"), "checkout", "-q", "--detach")
	gitT(t, repo, "branch", "-D", "teamctl/rev/b")
	tm := f.open("rev")

	ch, err := tm.Diff(f.ctx, nil, DiffStat)
	if err != nil {
		t.Fatal(err)
	}
	a, b := workOf(ch, "a"), workOf(ch, "b")
	if a.Error != "" || a.Commits != 1 || !slices.Equal(filesOf(a), []string{"a.go"}) || len(a.Notes) != 1 || !strings.Contains(a.Notes[0], "is gone: the commits of its branch teamctl/rev/a only") {
		t.Errorf("a, its folder deleted: %+v", a)
	}
	if b.Error != "" || b.Branch != "" || len(b.Notes) != 1 || !strings.Contains(b.Notes[0], "not on its branch teamctl/rev/b, which is gone") {
		t.Errorf("b, detached and its branch deleted: %+v", b)
	}

	st := f.state("rev")
	st.Worktrees[1].Branch = "--upload-pack=touch /tmp/pwned"
	st.Worktrees[0].Base = "--output=/tmp/x"
	if err := state.Save(st); err != nil {
		t.Fatal(err)
	}
	ch, err = tm.Diff(f.ctx, nil, DiffStat)
	if err != nil {
		t.Fatal(err)
	}
	a, b = workOf(ch, "a"), workOf(ch, "b")
	if !strings.Contains(b.Error, `branch name "--upload-pack=touch /tmp/pwned"`) {
		t.Errorf("b with a hostile branch: %+v", b)
	}
	if a.Error != "" || a.Base.Name != "main" || !strings.Contains(strings.Join(a.Notes, "\n"), `base main: the recorded "--output=/tmp/x" is no name of a commit`) {
		t.Errorf("a with a hostile base: %+v", a)
	}
	if c, err := tm.Conflicts(f.ctx); err == nil && (!slices.ContainsFunc(c.Unread, func(s Skipped) bool { return s.Member == "b" && strings.Contains(s.Why, "branch name") }) || !c.Failed()) {
		t.Errorf("conflicts with b's hostile branch: %+v", c.Unread)
	}

	gitT(t, repo, "worktree", "prune")
	gitT(t, repo, "branch", "-D", "teamctl/rev/a")
	ch, _ = tm.Diff(f.ctx, []string{"a"}, DiffStat)
	if len(ch.Work) != 1 || !strings.Contains(ch.Work[0].Error, "the worktree is gone and so is the branch") || !slices.Equal(ch.Unread(), []string{"a"}) {
		t.Errorf("a, folder and branch gone: %+v", ch.Work)
	}
}
