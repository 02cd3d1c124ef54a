package worktrees

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// landRepo is a repository with app.go on main, checked out in the main
// checkout, and member a's worktree with one commit changing line 5.
func landRepo(t *testing.T) (main, a string) {
	t.Helper()
	main = repo(t)
	if err := CheckMergeTree(ctx(t)); err != nil {
		t.Skip(err)
	}
	commitFiles(t, main, "app", map[string]string{"app.go": "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"})
	if err := Exclude(filepath.Join(main, ".git"), "/"+DefaultFolder+"/"); err != nil {
		t.Fatal(err)
	}
	a = member(t, main, "a", nil)
	commitFiles(t, a, "five by a", map[string]string{"app.go": "1\n2\n3\n4\nfive by a\n6\n7\n8\n9\n10\n", "a.go": "a\n"})
	return main, a
}

func head(t *testing.T, dir, rev string) string {
	t.Helper()
	return strings.TrimSpace(run(t, dir, "rev-parse", rev))
}

// TestLandMergesWithoutACheckout: a's branch lands on main as a merge
// commit with both parents; the main checkout, clean and on main, is
// brought forward (its files are the merge's, its status clean); a's
// worktree is as it was; landing again is nothing, whatever the checkout
// holds meanwhile.
func TestLandMergesWithoutACheckout(t *testing.T) {
	t.Parallel()
	main, a := landRepo(t)
	c := ctx(t)
	commitFiles(t, main, "ten on main", map[string]string{"app.go": "1\n2\n3\n4\n5\n6\n7\n8\n9\nten on main\n"})
	old, src := head(t, main, "main"), head(t, main, "teamctl/t/a")
	check := untouched(t, a)
	l, err := Land(c, LandSpec{Main: main, Branch: "teamctl/t/a", Into: "main"})
	if err != nil {
		t.Fatal(err)
	}
	check()
	if l.Old != old || l.New != head(t, main, "main") || l.Commits != 1 || l.UpToDate || l.Checkout != main {
		t.Errorf("landed %+v", l)
	}
	if parents := strings.Fields(run(t, main, "log", "-1", "--format=%P", "main")); len(parents) != 2 || parents[0] != old || parents[1] != src {
		t.Errorf("parents %v, want %s %s", parents, old, src)
	}
	b, _ := os.ReadFile(filepath.Join(main, "app.go"))
	if string(b) != "1\n2\n3\n4\nfive by a\n6\n7\n8\n9\nten on main\n" {
		t.Errorf("main checkout's app.go: %q", b)
	}
	if st := run(t, main, "status", "--porcelain"); st != "" {
		t.Errorf("main checkout not clean after: %q", st)
	}
	os.WriteFile(filepath.Join(main, "notes.txt"), []byte("a person's\n"), 0o644)
	again, err := Land(c, LandSpec{Main: main, Branch: "teamctl/t/a", Into: "main"})
	if err != nil || !again.UpToDate || again.New != l.New {
		t.Errorf("landing again: %+v, %v", again, err)
	}
}

// TestLandSquash: one parent, a's changes in one commit naming its commits;
// --into another branch, checked out nowhere.
func TestLandSquash(t *testing.T) {
	t.Parallel()
	main, a := landRepo(t)
	c := ctx(t)
	commitFiles(t, a, "second of a", map[string]string{"a2.go": "a2\n"})
	run(t, main, "branch", "release")
	old := head(t, main, "release")
	l, err := Land(c, LandSpec{Main: main, Branch: "teamctl/t/a", Into: "release", Squash: true})
	if err != nil {
		t.Fatal(err)
	}
	if l.Commits != 2 || l.Checkout != "" || head(t, main, "release") != l.New || head(t, main, "main") != old {
		t.Errorf("landed %+v (main must not move)", l)
	}
	if p := strings.Fields(run(t, main, "log", "-1", "--format=%P", "release")); len(p) != 1 || p[0] != old {
		t.Errorf("squash parents %v, want %s alone", p, old)
	}
	msg := run(t, main, "log", "-1", "--format=%B", "release")
	if !strings.Contains(msg, "2 commit(s) squashed") || !strings.Contains(msg, "* second of a") || !strings.Contains(msg, "* five by a") {
		t.Errorf("squash message: %q", msg)
	}
	if got := run(t, main, "ls-tree", "--name-only", "release"); got != "a.go\na2.go\napp.go\n" {
		t.Errorf("release's files: %q", got)
	}
}

// TestLandConflictMovesNothing: a conflict is refused with its files;
// no ref, no file of any checkout changes.
func TestLandConflictMovesNothing(t *testing.T) {
	t.Parallel()
	main, a := landRepo(t)
	c := ctx(t)
	commitFiles(t, main, "five on main", map[string]string{"app.go": "1\n2\n3\n4\nfive on main\n6\n7\n8\n9\n10\n"})
	refs := run(t, main, "for-each-ref")
	check := untouched(t, main, a)
	_, err := Land(c, LandSpec{Main: main, Branch: "teamctl/t/a", Into: "main"})
	var ce *ConflictError
	if !errors.As(err, &ce) || len(ce.Conflicts) != 1 || ce.Conflicts[0].Path != "app.go" || ce.Conflicts[0].Kind != "contents" {
		t.Fatalf("err %v, want a conflict in app.go", err)
	}
	if !strings.Contains(err.Error(), `"app.go" (contents)`) {
		t.Errorf("message: %v", err)
	}
	check()
	if got := run(t, main, "for-each-ref"); got != refs {
		t.Errorf("refs moved:\n%s\nwas\n%s", got, refs)
	}
}

// TestLandRefusesADirtyOrBusyCheckout: main checked out with a person's
// edit, or mid-merge: refused, saying so; nothing moves, the checkout's
// files and index are byte for byte as they were.
func TestLandRefusesADirtyOrBusyCheckout(t *testing.T) {
	t.Parallel()
	main, _ := landRepo(t)
	c := ctx(t)
	old := head(t, main, "main")
	os.WriteFile(filepath.Join(main, "app.go"), []byte("a person's edit\n"), 0o644)
	os.WriteFile(filepath.Join(main, "notes.txt"), []byte("mine\n"), 0o644)
	check := untouched(t, main)
	_, err := Land(c, LandSpec{Main: main, Branch: "teamctl/t/a", Into: "main"})
	var ce *CheckoutError
	if !errors.As(err, &ce) || ce.Path != main || !strings.Contains(err.Error(), "uncommitted changes: app.go") || strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("err %v, want the checkout refused naming its changed file (not the untracked one)", err)
	}
	check()
	if b, _ := os.ReadFile(filepath.Join(main, "app.go")); string(b) != "a person's edit\n" || head(t, main, "main") != old {
		t.Errorf("app.go %q, main %s (want both as they were)", b, head(t, main, "main"))
	}

	run(t, main, "checkout", "-q", "--", "app.go")
	os.Remove(filepath.Join(main, "notes.txt"))
	os.WriteFile(filepath.Join(main, ".git", "MERGE_HEAD"), []byte(old+"\n"), 0o644)
	_, err = Land(c, LandSpec{Main: main, Branch: "teamctl/t/a", Into: "main"})
	if !errors.As(err, &ce) || ce.Busy != "merge" || !strings.Contains(err.Error(), "a merge is stopped half-way") {
		t.Errorf("mid-merge: %v", err)
	}
	if head(t, main, "main") != old {
		t.Error("main moved")
	}
}

// TestLandLeavesUntrackedFilesBe: an untracked file in the checkout of the
// target that the merge does not touch (the teamctl.yaml `teamctl init`
// wrote) does not stop the landing, and stays; one the merge would overwrite
// refuses it with git's word, main goes back, and the file is as it was.
func TestLandLeavesUntrackedFilesBe(t *testing.T) {
	t.Parallel()
	main, _ := landRepo(t)
	c := ctx(t)
	os.WriteFile(filepath.Join(main, "a.go"), []byte("mine\n"), 0o644) // a's branch adds a.go
	old := head(t, main, "main")
	_, err := Land(c, LandSpec{Main: main, Branch: "teamctl/t/a", Into: "main"})
	var ce *CheckoutError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "a.go") {
		t.Fatalf("an untracked a.go in the way: %v, want refused naming it", err)
	}
	if b, _ := os.ReadFile(filepath.Join(main, "a.go")); string(b) != "mine\n" || head(t, main, "main") != old {
		t.Errorf("a.go %q, main moved %v: want both as they were", b, head(t, main, "main") != old)
	}

	os.Remove(filepath.Join(main, "a.go"))
	os.WriteFile(filepath.Join(main, "teamctl.yaml"), []byte("team: t\n"), 0o644)
	l, err := Land(c, LandSpec{Main: main, Branch: "teamctl/t/a", Into: "main"})
	if err != nil || l.Checkout != main {
		t.Fatalf("with an untracked teamctl.yaml the merge does not touch: %+v %v, want landed and the checkout brought forward", l, err)
	}
	if b, _ := os.ReadFile(filepath.Join(main, "teamctl.yaml")); string(b) != "team: t\n" {
		t.Errorf("teamctl.yaml = %q, want it kept", b)
	}
	if b, _ := os.ReadFile(filepath.Join(main, "a.go")); string(b) != "a\n" {
		t.Errorf("a.go = %q, want a's", b)
	}
}

// TestLandLosesARace: main moves between the merge being made and the
// compare-and-swap (as another teamctl merge would): refused, main keeps
// the other commit, nothing is lost; run again, it lands on top of it.
func TestLandLosesARace(t *testing.T) {
	t.Parallel()
	main, _ := landRepo(t)
	c := ctx(t)
	run(t, main, "checkout", "-q", "--detach") // main checked out nowhere: only the ref races
	other := ""
	_, err := Land(c, LandSpec{Main: main, Branch: "teamctl/t/a", Into: "main", Ready: func(ctx context.Context) error {
		w := member(t, main, "other", nil)
		commitFiles(t, w, "the other merge", map[string]string{"other.go": "o\n"})
		other = head(t, w, "HEAD")
		run(t, main, "update-ref", "refs/heads/main", other)
		return nil
	}})
	var me *MovedError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "moved while the merge was made") {
		t.Fatalf("err %v, want the moved ref refused", err)
	}
	if head(t, main, "main") != other {
		t.Error("the other commit was lost")
	}
	l, err := Land(c, LandSpec{Main: main, Branch: "teamctl/t/a", Into: "main"})
	if err != nil || l.Old != other {
		t.Errorf("again: %+v, %v", l, err)
	}
}

// TestLandRefusesHostileNames: names git would read as options or ranges
// never reach it.
func TestLandRefusesHostileNames(t *testing.T) {
	t.Parallel()
	main, _ := landRepo(t)
	for _, s := range []LandSpec{
		{Main: main, Branch: "--upload-pack=touch x", Into: "main"},
		{Main: main, Branch: "teamctl/t/a", Into: "main..x"},
		{Main: main, Branch: "teamctl/t/a", Into: "teamctl/t/a"},
	} {
		if _, err := Land(ctx(t), s); err == nil {
			t.Errorf("%+v: landed", s)
		}
	}
}

// TestCommitWork: --wip's commit of a worktree's uncommitted and untracked
// files, on its branch; its files untouched, its status clean after.
func TestCommitWork(t *testing.T) {
	t.Parallel()
	main, a := landRepo(t)
	c := ctx(t)
	os.WriteFile(filepath.Join(a, "app.go"), []byte("uncommitted\n"), 0o644)
	os.WriteFile(filepath.Join(a, "new file.go"), []byte("new\n"), 0o644)
	w, err := ReadWork(c, main, a, "teamctl/t/a")
	if err != nil {
		t.Fatal(err)
	}
	commit, err := CommitWork(c, main, w, "wip")
	if err != nil {
		t.Fatal(err)
	}
	if head(t, main, "teamctl/t/a") != w.Head {
		t.Error("CommitWork moved the branch")
	}
	if err := MoveBranch(c, main, w, commit, "wip"); err != nil {
		t.Fatal(err)
	}
	if head(t, main, "teamctl/t/a") != commit {
		t.Error("the branch is not at the commit")
	}
	if st := run(t, a, "status", "--porcelain"); st != "" {
		t.Errorf("status after: %q", st)
	}
	if b, _ := os.ReadFile(filepath.Join(a, "app.go")); string(b) != "uncommitted\n" {
		t.Errorf("app.go: %q", b)
	}
	if err := MoveBranch(c, main, w, commit, "again"); err == nil {
		t.Error("moved a branch that was not where it was read")
	}
}

// TestLandTwoAtOnce: two merges into main at the same moment, from two
// goroutines: each either lands or refuses because main moved; whatever
// landed is in main's history, nothing is lost.
func TestLandTwoAtOnce(t *testing.T) {
	t.Parallel()
	main, _ := landRepo(t)
	c := ctx(t)
	run(t, main, "checkout", "-q", "--detach")
	b := member(t, main, "b", nil)
	commitFiles(t, b, "b's file", map[string]string{"b.go": "b\n"})
	type result struct {
		l   Landed
		err error
	}
	results := make(chan result, 2)
	for _, br := range []string{"teamctl/t/a", "teamctl/t/b"} {
		go func() {
			l, err := Land(c, LandSpec{Main: main, Branch: br, Into: "main"})
			results <- result{l, err}
		}()
	}
	landed := 0
	for range 2 {
		r := <-results
		var me *MovedError
		switch {
		case r.err == nil:
			landed++
			if _, err := gitAllowFail(t, main, "merge-base", "--is-ancestor", r.l.New, "main"); err != nil {
				t.Errorf("%s landed as %s, which main lost", r.l.Branch, r.l.New)
			}
		case !errors.As(r.err, &me):
			t.Errorf("%v, want a landing or a moved main", r.err)
		}
	}
	if landed == 0 {
		t.Error("neither landed")
	}
}
