package team

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/state"
)

// Merge and Finish against real git, on reviewTeam's repository: a and b in
// worktrees on branches from dev (checked out nowhere); the main checkout on
// main, with a person's uncommitted edit.

func revParseT(t *testing.T, dir, rev string) string {
	t.Helper()
	return strings.TrimSpace(gitT(t, dir, "rev-parse", rev))
}

// commitIn writes name in dir and commits it.
func commitIn(t *testing.T, dir, name, body, msg string) {
	t.Helper()
	writeT(t, dir, name, body)
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", msg)
}

// TestMergeInOrderStoppingAtARefusal: a then b land on dev, each a merge
// commit, and dev has both files; the main checkout (on main, dirty) is not
// touched. Then a conflict: a and b editing line 5, b is refused with the
// file listed once a landed, the member after b not tried, dev as a left it.
func TestMergeInOrderStoppingAtARefusal(t *testing.T) {
	f := newFakeWorld(t)
	repo, wt := reviewTeam(t, f)
	commitIn(t, wt("a"), "a.go", "a\n", "a's work")
	commitIn(t, wt("b"), "b.go", "b\n", "b's work")
	check := checkouts(t, repo, wt("a"), wt("b"))
	tm := f.open("rev")

	res, err := tm.Merge(f.ctx, []string{"a", "b"}, MergeOptions{})
	if err != nil || res.Refused != nil || len(res.Landed) != 2 {
		t.Fatalf("%+v, %v", res, err)
	}
	if l := res.Landed[1]; l.Member != "b" || l.Into != "dev" || l.New != revParseT(t, repo, "dev") || l.Checkout != "" || l.Commits != 1 {
		t.Errorf("b landed: %+v", l)
	}
	if got := gitT(t, repo, "ls-tree", "--name-only", "dev"); got != "a.go\napp.go\nb.go\nsrc\n" {
		t.Errorf("dev: %q", got)
	}
	check()

	commitIn(t, wt("a"), "app.go", strings.Replace(tenLines, "5\n", "five by a\n", 1), "a's five")
	commitIn(t, wt("b"), "app.go", strings.Replace(tenLines, "5\n", "five by b\n", 1), "b's five")
	res, err = tm.Merge(f.ctx, []string{"a", "b", "c"}, MergeOptions{})
	if err != nil || len(res.Landed) != 1 || res.Refused == nil {
		t.Fatalf("%+v, %v", res, err)
	}
	dev := revParseT(t, repo, "dev")
	if r := res.Refused; r.Member != "b" || len(r.Conflicts) != 1 || r.Conflicts[0].Path != "app.go" || len(r.NotTried) != 1 || r.NotTried[0] != "c" || !strings.Contains(r.Why, "would conflict") {
		t.Errorf("refused %+v", r)
	}
	if dev != res.Landed[0].New {
		t.Error("dev moved after the conflict")
	}
}

// TestMergeRefusals: uncommitted work (and --wip committing it on the
// member's branch, its files untouched), a rebase stopped half-way, a member
// without a worktree, a hostile branch in state.json, a target checkout
// with a person's changes (untouched).
func TestMergeRefusals(t *testing.T) {
	f := newFakeWorld(t)
	repo, wt := reviewTeam(t, f)
	tm := f.open("rev")
	writeT(t, wt("a"), "wip.go", "half done\n")
	dev := revParseT(t, repo, "dev")

	refused := func(name string, o MergeOptions, want string) {
		t.Helper()
		res, err := tm.Merge(f.ctx, []string{name}, o)
		if err != nil || res.Refused == nil || !strings.Contains(res.Refused.Why, want) || len(res.Landed) != 0 {
			t.Errorf("merge %s %+v: %+v, %v; want refused: %s", name, o, res, err, want)
		}
		if revParseT(t, repo, "dev") != dev {
			t.Fatal("dev moved")
		}
	}
	refused("a", MergeOptions{}, "1 uncommitted file(s)")
	refused("c", MergeOptions{}, "no worktree of its own")
	refused("nobody", MergeOptions{}, `no member "nobody"`)

	check := checkouts(t, repo)
	b, _ := os.ReadFile(filepath.Join(repo, "app.go"))
	refused("a", MergeOptions{WIP: true, Into: "main"}, "checked out in "+repo)
	check()
	if after, _ := os.ReadFile(filepath.Join(repo, "app.go")); string(after) != string(b) {
		t.Error("the person's edit changed")
	}
	if got := gitT(t, wt("a"), "status", "--porcelain"); got != "?? wip.go\n" {
		t.Errorf("a's worktree after a refused --wip: %q", got)
	}

	res, err := tm.Merge(f.ctx, []string{"a"}, MergeOptions{WIP: true, Message: "land a"})
	if err != nil || res.Refused != nil {
		t.Fatalf("--wip: %+v, %v", res, err)
	}
	l := res.Landed[0]
	if l.WIP == "" || revParseT(t, repo, "teamctl/rev/a") != l.WIP || !strings.Contains(gitT(t, repo, "log", "-1", "--format=%B", l.WIP), "committed by teamctl merge --wip") {
		t.Errorf("the --wip commit: %+v", l)
	}
	if got := gitT(t, repo, "log", "-1", "--format=%B", "dev"); got != "land a\n\n" {
		t.Errorf("the merge's message: %q", got)
	}
	if got := gitT(t, wt("a"), "status", "--porcelain"); got != "" {
		t.Errorf("a's worktree after --wip: %q", got)
	}
	dev = revParseT(t, repo, "dev")

	gitdir := strings.TrimSpace(gitT(t, wt("b"), "rev-parse", "--absolute-git-dir"))
	os.MkdirAll(filepath.Join(gitdir, "rebase-merge"), 0o755)
	refused("b", MergeOptions{}, "a rebase is stopped half-way")
	os.RemoveAll(filepath.Join(gitdir, "rebase-merge"))

	st := f.state("rev")
	st.Worktrees[1].Branch = "--output=/tmp/x"
	if err := state.Save(st); err != nil {
		t.Fatal(err)
	}
	refused("b", MergeOptions{}, `branch name "--output=/tmp/x"`)
}

// TestFinish: a running member is refused; once the team is down, a's
// merged worktree and branch go without a snapshot (nothing to lose), and
// its record leaves state.json; b's, landed with --squash (its commits are
// then on no other branch), go once a snapshot holds them, from which
// restore brings b's files back.
func TestFinish(t *testing.T) {
	f := newFakeWorld(t)
	repo, wt := reviewTeam(t, f)
	commitIn(t, wt("a"), "a.go", "a\n", "a's work")
	commitIn(t, wt("b"), "b.go", "b\n", "b's work")
	tm := f.open("rev")

	res, err := tm.Finish(f.ctx, []string{"a"}, false, MergeOptions{})
	if err != nil || res.Refused == nil || !strings.Contains(res.Refused.Why, "a is running") {
		t.Fatalf("finish of a running member: %+v, %v", res, err)
	}
	if _, err := os.Stat(wt("a")); err != nil {
		t.Fatal("a's worktree went")
	}
	if _, err := tm.Down(f.ctx, DownOptions{Now: true, Timeout: time.Second}); err != nil {
		t.Fatal(err)
	}

	res, err = tm.Finish(f.ctx, []string{"a"}, false, MergeOptions{})
	if err != nil || res.Refused != nil || len(res.Finished) != 1 {
		t.Fatalf("%+v, %v", res, err)
	}
	if fa := res.Finished[0]; fa.Branch != "teamctl/rev/a" || fa.Snapshot != nil || fa.Worktree != wt("a") {
		t.Errorf("a finished: %+v", fa)
	}
	if _, err := os.Stat(wt("a")); err == nil || strings.Contains(gitT(t, repo, "branch"), "teamctl/rev/a") {
		t.Error("a's worktree or branch is still there")
	}
	if st := f.state("rev"); len(st.Worktrees) != 1 || st.Worktrees[0].Member != "b" {
		t.Errorf("records after: %+v", st.Worktrees)
	}

	res, err = tm.Finish(f.ctx, nil, true, MergeOptions{Squash: true})
	if err != nil || res.Refused != nil || len(res.Finished) != 1 {
		t.Fatalf("--all --squash: %+v, %v", res, err)
	}
	fb := res.Finished[0]
	if fb.Member != "b" || fb.Snapshot == nil || fb.Restore != "teamctl restore "+fb.Snapshot.Name() || fb.Branch != "teamctl/rev/b" {
		t.Fatalf("b finished: %+v", fb)
	}
	if got := gitT(t, repo, "ls-tree", "--name-only", "dev"); got != "a.go\napp.go\nb.go\nsrc\n" {
		t.Errorf("dev: %q", got)
	}
	back := filepath.Join(f.dir, "back")
	if _, err := snapshots.Restore(f.ctx, fb.Snapshot.Name(), back); err != nil {
		t.Fatal(err)
	}
	if got := gitT(t, back, "log", "-1", "--format=%s"); got != "b's work\n" {
		t.Errorf("restored: %q", got)
	}
}

// TestFinishByCleansRules: a worktree record state.json moved outside
// teamctl's place is refused, and the folder it names is left alone; a
// worktree deleted by hand is finished from its branch (merged, the branch
// deleted, git's record pruned).
func TestFinishByCleansRules(t *testing.T) {
	f := newFakeWorld(t)
	repo, wt := reviewTeam(t, f)
	commitIn(t, wt("a"), "a.go", "a\n", "a's work")
	commitIn(t, wt("b"), "b.go", "b\n", "b's work")
	tm := f.open("rev")
	if _, err := tm.Down(f.ctx, DownOptions{Now: true, Timeout: time.Second}); err != nil {
		t.Fatal(err)
	}
	st := f.state("rev")
	st.Worktrees[0].Path = repo // the person's main checkout
	if err := state.Save(st); err != nil {
		t.Fatal(err)
	}
	res, err := tm.Finish(f.ctx, []string{"a"}, false, MergeOptions{})
	if err != nil || res.Refused == nil || !strings.Contains(res.Refused.Why, "not where the layout puts a's worktree") {
		t.Fatalf("a record moved to the main checkout: %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(repo, "app.go")); err != nil || strings.Contains(gitT(t, repo, "log", "--format=%s", "dev"), "a's work") {
		t.Error("the main checkout was touched, or a's work landed")
	}

	os.RemoveAll(wt("b"))
	res, err = tm.Finish(f.ctx, []string{"b"}, false, MergeOptions{})
	if err != nil || res.Refused != nil || len(res.Finished) != 1 || res.Finished[0].Branch != "teamctl/rev/b" || res.Finished[0].Snapshot != nil {
		t.Fatalf("b, its folder deleted: %+v, %v (refused: %+v)", res, err, res.Refused)
	}
	if !strings.Contains(gitT(t, repo, "log", "--format=%s", "dev"), "b's work") || strings.Contains(gitT(t, repo, "worktree", "list"), wt("b")) {
		t.Error("b's work did not land, or git still lists its worktree")
	}
}

// TestMergeTargetIsNotState: a member that edits state.json's base of its
// worktree (to prod) does not choose where its work lands: the branch's own
// git config (written when up made it) says dev, so merge and finish
// refuse, saying both, and neither prod nor dev moves. With the branch's
// record gone (a branch of an older teamctl) the layout's base is what
// state.json is checked against; with neither, nothing lands without --into.
func TestMergeTargetIsNotState(t *testing.T) {
	f := newFakeWorld(t)
	repo, wt := reviewTeam(t, f)
	commitIn(t, wt("a"), "a.go", "a\n", "a's work")
	gitT(t, repo, "branch", "prod", "main")
	if got := strings.TrimSpace(gitT(t, repo, "config", "--get", "branch.teamctl/rev/a.teamctl-base")); got != "dev" {
		t.Fatalf("branch.teamctl/rev/a.teamctl-base = %q, want dev (written by up)", got)
	}
	prod, dev := revParseT(t, repo, "prod"), revParseT(t, repo, "dev")
	st := f.state("rev")
	st.Worktrees[0].Base = "prod"
	if err := state.Save(st); err != nil {
		t.Fatal(err)
	}
	tm := f.open("rev")
	unmoved := func() {
		t.Helper()
		if revParseT(t, repo, "prod") != prod || revParseT(t, repo, "dev") != dev {
			t.Fatal("prod or dev moved")
		}
	}
	res, err := tm.Merge(f.ctx, []string{"a"}, MergeOptions{})
	if err != nil || res.Refused == nil || len(res.Landed) != 0 ||
		!strings.Contains(res.Refused.Why, `state.json records base "prod"`) || !strings.Contains(res.Refused.Why, `teamctl-base) says "dev"`) {
		t.Errorf("merge with state.json's base edited: %+v, %v", res.Refused, err)
	}
	unmoved()
	if _, err := tm.Down(f.ctx, DownOptions{Now: true, Timeout: time.Second}); err != nil {
		t.Fatal(err)
	}
	fin, err := tm.Finish(f.ctx, []string{"a"}, false, MergeOptions{})
	if _, serr := os.Stat(wt("a")); err != nil || fin.Refused == nil || !strings.Contains(fin.Refused.Why, `says "dev"`) || serr != nil {
		t.Errorf("finish with state.json's base edited: %+v, %v", fin.Refused, err)
	}
	unmoved()

	gitT(t, repo, "config", "--unset", "branch.teamctl/rev/a.teamctl-base")
	res, _ = tm.Merge(f.ctx, []string{"a"}, MergeOptions{})
	if res.Refused == nil || !strings.Contains(res.Refused.Why, `says "dev"`) || !strings.Contains(res.Refused.Why, "the layout") {
		t.Errorf("merge, the base only in the layout: %+v", res.Refused)
	}
	unmoved()

	// Put right, it lands on dev, whatever state.json said before.
	st = f.state("rev")
	st.Worktrees[0].Base = "dev"
	if err := state.Save(st); err != nil {
		t.Fatal(err)
	}
	res, err = tm.Merge(f.ctx, []string{"a"}, MergeOptions{})
	if err != nil || res.Refused != nil || res.Landed[0].Into != "dev" || revParseT(t, repo, "prod") != prod {
		t.Errorf("merge with the bases agreeing: %+v, %v", res, err)
	}
}

// TestMergeIsRecorded: each member landed is a merged event in the team's
// history, saying into what and by whom — from the page with its address,
// as from the command line — and nothing that was already there is.
func TestMergeIsRecorded(t *testing.T) {
	f := newFakeWorld(t)
	_, wt := reviewTeam(t, f)
	commitIn(t, wt("a"), "a.go", "a\n", "a's work")
	tm := f.open("rev")
	tm.ActingAs(By{Via: "web", From: "127.0.0.1:5000"})
	if res, err := tm.Merge(f.ctx, []string{"a", "b"}, MergeOptions{}); err != nil || res.Refused != nil {
		t.Fatalf("%+v, %v", res, err)
	}
	evs, err := state.ReadEvents("rev")
	if err != nil {
		t.Fatal(err)
	}
	var merged []state.Event
	for _, e := range evs {
		if e.Kind == state.EventMerged {
			merged = append(merged, e)
		}
	}
	if len(merged) != 1 || merged[0].Member != "a" || merged[0].Via != "web" || merged[0].From != "127.0.0.1:5000" ||
		!strings.Contains(merged[0].Detail, "merged teamctl/rev/a into dev") || !strings.Contains(merged[0].Detail, "teamctl serve") {
		t.Errorf("merged events %+v; want one for a (b had nothing to land), by the web from its address", merged)
	}
}
