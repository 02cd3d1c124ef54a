package worktrees

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// dirtyMain gives the main checkout of main a tracked file, then changes it
// and adds an untracked one without committing: a person's work in
// progress, which nothing of teamctl may touch.
func dirtyMain(t *testing.T, main string) {
	t.Helper()
	os.WriteFile(filepath.Join(main, "shared.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	run(t, main, "add", "shared.txt")
	run(t, main, "commit", "-q", "-m", "shared file")
	os.WriteFile(filepath.Join(main, "shared.txt"), []byte("one\nTWO (a person's edit)\nthree\n"), 0o644)
	os.WriteFile(filepath.Join(main, "person's notes.txt"), []byte("mine\n"), 0o644)
	if err := Exclude(filepath.Join(main, ".git"), "/"+DefaultFolder+"/"); err != nil {
		t.Fatal(err)
	}
}

// untouched records a checkout's index (bytes and mtime) and git status, to
// compare after: reading work must leave both as they were.
func untouched(t *testing.T, dirs ...string) func() {
	t.Helper()
	before := map[string]indexState{}
	for _, d := range dirs {
		before[d] = checkoutIndex(t, d)
	}
	return func() {
		t.Helper()
		for _, d := range dirs {
			after := checkoutIndex(t, d)
			if b := before[d]; !bytes.Equal(b.bytes, after.bytes) || !b.mtime.Equal(after.mtime) || b.status != after.status {
				t.Errorf("%s changed: index equal %v, mtime %v → %v, status %q → %q", d, bytes.Equal(b.bytes, after.bytes), b.mtime, after.mtime, b.status, after.status)
			}
		}
	}
}

// checkoutIndex is indexOf for a main checkout or a worktree.
func checkoutIndex(t *testing.T, dir string) indexState {
	t.Helper()
	if fi, err := os.Lstat(filepath.Join(dir, ".git")); err == nil && fi.IsDir() {
		// indexOf reads a worktree's .git file; a main checkout has a folder.
		gitdir := filepath.Join(dir, ".git")
		b, err := os.ReadFile(filepath.Join(gitdir, "index"))
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(filepath.Join(gitdir, "index"))
		cmd := exec.Command("git", "-C", dir, "status", "--porcelain=v1", "-z", "--untracked-files=all")
		cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0") // this status must not refresh the index itself
		status, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return indexState{b, fi.ModTime(), string(status)}
	}
	return indexOf(t, dir)
}

func paths(files []FileChange) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	slices.Sort(out)
	return out
}

func byPath(files []FileChange, p string) FileChange {
	for _, f := range files {
		if f.Path == p {
			return f
		}
	}
	return FileChange{}
}

// TestReadWorkAndDiff: a member's work since its base is its branch's
// commits and every file of its folder that is not ignored — awkward names
// read byte for byte, binary files said, a file over the limit and a
// repository of its own left out and named, a file committed then deleted
// not there at all — and reading it touches neither the member's index nor
// the person's dirty main checkout.
func TestReadWorkAndDiff(t *testing.T) {
	t.Parallel()
	main := repo(t)
	c := ctx(t)
	dirtyMain(t, main)
	wt := workInProgress(t, main, "t", "a")
	check := untouched(t, main, wt)

	w, err := ReadWork(c, main, wt, "teamctl/t/a")
	if err != nil {
		t.Fatal(err)
	}
	if w.Branch != "teamctl/t/a" || w.Gone || w.Busy != "" || len(w.Head) != 40 || len(w.Tree) != 40 {
		t.Errorf("work %+v", w)
	}
	var left []string
	for _, l := range w.LeftOut {
		left = append(left, l.Path)
	}
	if !slices.Equal(left, []string{"disk.img", "vendor/dep/"}) {
		t.Errorf("left out %+v", w.LeftOut)
	}
	base, err := FindBase(c, main, "main")
	if err != nil || base.Name != "main" || !base.Branch || base.Guessed != "" {
		t.Fatalf("base %+v, %v", base, err)
	}
	from, err := MergeBase(c, main, base.Commit, w.Head)
	if err != nil || from != base.Commit {
		t.Fatalf("merge base %s, %v; want main's head %s", from, err, base.Commit)
	}
	if n, err := CountCommits(c, main, from, w.Head); err != nil || n != 1 {
		t.Errorf("commits since the base: %d, %v", n, err)
	}
	files, err := DiffFiles(c, main, from, w.Tree)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string{".gitignore", "staged.txt", "unstaged.txt", "twice.txt", "image.bin", "run.sh", "link"}, awkward...)
	slices.Sort(want)
	if got := paths(files); !slices.Equal(got, want) {
		t.Errorf("files\n%q\nwant\n%q", got, want)
	}
	if f := byPath(files, "image.bin"); !f.Binary || f.Status != "added" {
		t.Errorf("the binary file: %+v", f)
	}
	if f := byPath(files, "twice.txt"); f.Added != 1 || f.Deleted != 0 || f.Binary {
		t.Errorf("twice.txt, staged then changed again: %+v (want its last content, one line)", f)
	}
	patch, err := Patch(c, main, from, w.Tree)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"diff --git a/twice.txt b/twice.txt\n", "+then changed again\n", `"b/new\nline.txt"`, `"b/caf\351.txt"`, "Binary files /dev/null and b/image.bin differ", "+content of -dash.txt"} {
		if !strings.Contains(patch, s) {
			t.Errorf("the patch lacks %q:\n%s", s, patch)
		}
	}
	if strings.Contains(patch, "debug.log") || strings.Contains(patch, "disk.img") {
		t.Errorf("the patch holds an ignored or left-out file:\n%s", patch)
	}

	// The person's checkout, read the same way, is its uncommitted work only.
	root, err := ReadCheckout(c, filepath.Join(main))
	if err != nil {
		t.Fatal(err)
	}
	files, err = DiffFiles(c, main, root.Head, root.Tree)
	if got := paths(files); err != nil || !slices.Equal(got, []string{"person's notes.txt", "shared.txt"}) || root.Branch != "main" || root.Files != 2 {
		t.Errorf("the main checkout's work: %q, %+v, %v", got, root, err)
	}
	check()
}

// TestReadWorkOfWhatAgentsLeave: a worktree deleted by hand leaves its
// branch's commits; with the branch gone too, nothing, said; a worktree
// detached or moved to another branch is read as it is; a branch deleted
// under a worktree (its HEAD names nothing) and a hostile branch name are
// refused, saying why; a merge stopped half-way is said.
func TestReadWorkOfWhatAgentsLeave(t *testing.T) {
	t.Parallel()
	main := repo(t)
	c := ctx(t)
	mk := func(name string) string {
		wt := filepath.Join(main, DefaultFolder, "t", name)
		if _, err := Ensure(c, Spec{Main: main, Path: wt, Branch: "teamctl/t/" + name}); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(wt, name+".txt"), []byte(name+"\n"), 0o644)
		run(t, wt, "add", ".")
		run(t, wt, "commit", "-q", "-m", name)
		return wt
	}

	gone := mk("gone")
	head := strings.TrimSpace(run(t, main, "rev-parse", "teamctl/t/gone"))
	os.RemoveAll(gone)
	w, err := ReadWork(c, main, gone, "teamctl/t/gone")
	if err != nil || !w.Gone || w.Head != head || w.Path != "" || w.Files != 0 {
		t.Errorf("worktree deleted by hand: %+v, %v", w, err)
	}
	run(t, main, "worktree", "prune")
	run(t, main, "branch", "-D", "teamctl/t/gone")
	if _, err := ReadWork(c, main, gone, "teamctl/t/gone"); err == nil || !strings.Contains(err.Error(), "the worktree is gone and so is the branch") {
		t.Errorf("worktree and branch gone: %v", err)
	}

	detached := mk("detached")
	run(t, detached, "checkout", "-q", "--detach")
	run(t, main, "branch", "-D", "teamctl/t/detached")
	if w, err := ReadWork(c, main, detached, "teamctl/t/detached"); err != nil || w.Branch != "" || w.Gone || len(w.Head) != 40 {
		t.Errorf("detached, its branch deleted: %+v, %v", w, err)
	}
	other := mk("other")
	run(t, other, "checkout", "-q", "-b", "elsewhere")
	if w, err := ReadWork(c, main, other, "teamctl/t/other"); err != nil || w.Branch != "elsewhere" {
		t.Errorf("on another branch: %+v, %v", w, err)
	}

	unborn := mk("unborn")
	run(t, main, "update-ref", "-d", "refs/heads/teamctl/t/unborn")
	if _, err := ReadWork(c, main, unborn, "teamctl/t/unborn"); err == nil || !strings.Contains(err.Error(), "its branch teamctl/t/unborn is gone") {
		t.Errorf("branch deleted under the worktree: %v", err)
	}
	for _, hostile := range []string{"--output=/tmp/x", "a..b", "main\nforged line"} {
		if _, err := ReadWork(c, main, "", hostile); err == nil || !strings.Contains(err.Error(), "branch name") {
			t.Errorf("hostile branch %q: %v", hostile, err)
		}
	}

	busy := mk("busy")
	os.WriteFile(filepath.Join(main, "busy.txt"), []byte("main's\n"), 0o644)
	run(t, main, "add", "busy.txt")
	run(t, main, "commit", "-q", "-m", "main's busy.txt")
	cmdOut, _ := gitAllowFail(t, busy, "merge", "-q", "main")
	w, err = ReadWork(c, main, busy, "teamctl/t/busy")
	if err != nil || w.Busy != "merge" {
		t.Errorf("mid-merge (%s): %+v, %v", cmdOut, w, err)
	}
}

// TestFindBase: the recorded base when it is a commit; else, and when it is
// gone or no name git takes, the main checkout's branch, saying why.
func TestFindBase(t *testing.T) {
	t.Parallel()
	main := repo(t)
	c := ctx(t)
	head := strings.TrimSpace(run(t, main, "rev-parse", "HEAD"))
	run(t, main, "tag", "v1")
	for _, cse := range []struct {
		recorded, name, guessed string
		branch                  bool
	}{
		{"main", "main", "", true},
		{head, head, "", false},
		{"v1", "v1", "", false},
		{"", "main", "none was recorded; the main checkout's main is taken", true},
		{"gone", "main", "the recorded gone is gone; the main checkout's main is taken", true},
		{"--all", "main", `the recorded "--all" is no name of a commit; the main checkout's main is taken`, true},
	} {
		b, err := FindBase(c, main, cse.recorded)
		if err != nil || b.Name != cse.name || b.Commit != head || b.Branch != cse.branch || b.Guessed != cse.guessed {
			t.Errorf("FindBase(%q) = %+v, %v; want %s, %q", cse.recorded, b, err, cse.name, cse.guessed)
		}
	}
}

// gitAllowFail runs git where it is meant to fail, and returns what it said.
func gitAllowFail(t *testing.T, dir string, args ...string) (string, error) {
	out, err := git(ctx(t), dir, args...)
	var ge *GitError
	if errors.As(err, &ge) {
		return out + ge.Stderr, err
	}
	return out, err
}

// TestRacilyCleanFilesAreRead: a file changed (same size) in the very
// timestamp its index was written in is one git's stat check cannot tell
// from the one it staged; git reads such a "racily clean" file again
// because its time is not before the index file's. The temporary index
// teamctl reads a worktree through keeps the index's time, so the change is
// seen there too (a copy made later hid it from diff, conflicts and
// snapshots: seen once on a loaded machine, a binary file both members
// changed missing from the conflicts).
func TestRacilyCleanFilesAreRead(t *testing.T) {
	// A change in the same tick has the ctime too: here, where the test
	// sets only mtimes, git is told not to look at ctimes.
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "core.trustctime")
	t.Setenv("GIT_CONFIG_VALUE_0", "false")
	main := repo(t)
	c := ctx(t)
	commitFiles(t, main, "pic", map[string]string{"pic.bin": "\x00\x01\x02"})
	wt := member(t, main, "a", nil)
	run(t, wt, "update-index", "--refresh") // the index written now, its entries clean
	index := filepath.Join(main, ".git", "worktrees", "a", "index")
	if _, err := os.Stat(index); err != nil {
		t.Fatal(err)
	}
	// The change, in the tick the index was written in.
	at := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(filepath.Join(wt, "pic.bin"), at, at); err != nil {
		t.Fatal(err)
	}
	run(t, wt, "update-index", "--refresh")
	if err := os.WriteFile(filepath.Join(wt, "pic.bin"), []byte("\x00\x01a"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(wt, "pic.bin"), index} {
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if st := run(t, wt, "--no-optional-locks", "status", "--porcelain"); !strings.Contains(st, "pic.bin") {
		t.Fatalf("git itself sees no change (the test's set-up is wrong): %q", st)
	}
	w, err := ReadWork(c, main, wt, "teamctl/t/a")
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, main, "cat-file", "blob", w.Tree+":pic.bin"); got != "\x00\x01a" {
		t.Errorf("pic.bin in the tree of a's work: %q, want its change", got)
	}
}

// TestReadWorkTreeIsTheSnapshots: ReadWork adds only the files status lists
// to its copy of the index (stateTreeOf); its tree must be the one `add
// --all` of the whole folder makes (stateTree, which snapshots take), on
// every kind of change, staged deletions and renames among them.
func TestReadWorkTreeIsTheSnapshots(t *testing.T) {
	t.Parallel()
	main := repo(t)
	wt := workInProgress(t, main, "t", "m")
	for _, f := range []string{"gone.txt", "back.txt", "moved.txt"} {
		os.WriteFile(filepath.Join(wt, f), []byte("committed "+f+"\n"), 0o644)
	}
	run(t, wt, "add", "gone.txt", "back.txt", "moved.txt")
	run(t, wt, "-c", "user.email=t@x", "-c", "user.name=t", "commit", "-q", "-m", "more")
	run(t, wt, "rm", "-q", "gone.txt", "back.txt")                             // staged deletions ("D ")...
	os.WriteFile(filepath.Join(wt, "back.txt"), []byte("made again\n"), 0o644) // ...one made again ("D " and "??")
	run(t, wt, "mv", "moved.txt", "renamed.txt")                               // a staged rename ("R ")
	w, err := ReadWork(ctx(t), main, wt, "teamctl/t/m")
	if err != nil {
		t.Fatal(err)
	}
	want, err := stateTree(ctx(t), wt, w.Head, w.LeftOut)
	if err != nil {
		t.Fatal(err)
	}
	if w.Tree != want || w.Files == 0 {
		t.Fatalf("ReadWork's tree %s (%d files), add --all's %s:\n%s\n%s", w.Tree, w.Files, want,
			run(t, wt, "ls-tree", "-r", w.Tree), run(t, wt, "ls-tree", "-r", want))
	}
	for _, f := range []string{"gone.txt", "moved.txt"} {
		if out := run(t, wt, "ls-tree", w.Tree, "--", f); out != "" {
			t.Errorf("%s is in the tree: %q", f, out)
		}
	}
	if out := run(t, wt, "cat-file", "-p", w.Tree+":back.txt"); out != "made again\n" {
		t.Errorf("back.txt: %q", out)
	}
}

// TestDiffWorktreesIsTheTreesDiff: DiffWorktrees, which diffs the folder as
// it is (its new files intent-to-add in a copy of its index), lists the same
// files with the same lines, and shows the same patch, as the diff of the
// tree ReadWork makes of the folder — awkward names, a binary file, a
// symlink, a file staged then changed again, ignored and left-out files
// included — with where the branch left its base and its commits since
// found by the walk; the folder, its index and the main checkout untouched.
func TestDiffWorktreesIsTheTreesDiff(t *testing.T) {
	t.Parallel()
	main := repo(t)
	c := ctx(t)
	dirtyMain(t, main)
	wt := workInProgress(t, main, "t", "a")
	check := untouched(t, main, wt)
	w, err := ReadWork(c, main, wt, "teamctl/t/a")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := FindBase(c, main, "main")
	want, err := DiffFiles(c, main, base.Commit, w.Tree)
	if err != nil {
		t.Fatal(err)
	}
	wantPatch, _ := Patch(c, main, base.Commit, w.Tree)
	got := DiffWorktrees(c, main, []Member{{Name: "a", Path: wt, Branch: "teamctl/t/a", Base: "main"}}, true, 2)
	d := got[0]
	if d.Err != nil {
		t.Fatal(d.Err)
	}
	if d.From != base.Commit || d.Commits != 1 || d.Base.Name != "main" {
		t.Errorf("from %s (want %s), %d commits, base %+v", d.From, base.Commit, d.Commits, d.Base)
	}
	if !reflect.DeepEqual(d.Files, want) {
		t.Errorf("files\n%+v\nwant (the tree's)\n%+v", d.Files, want)
	}
	if d.Patch != wantPatch {
		t.Errorf("patch\n%s\nwant (the tree's)\n%s", d.Patch, wantPatch)
	}
	if !slices.Equal(leftOutPaths(d.Work.LeftOut), []string{"disk.img", "vendor/dep/"}) {
		t.Errorf("left out %+v", d.Work.LeftOut)
	}
	check()
}

func leftOutPaths(l []LeftOut) []string {
	var out []string
	for _, x := range l {
		out = append(out, x.Path)
	}
	return out
}
