package worktrees

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// member makes a worktree on its own branch from main, whose files are then
// written (not committed) as files says.
func member(t *testing.T, main, name string, files map[string]string) string {
	t.Helper()
	wt := filepath.Join(main, DefaultFolder, "t", name)
	if _, err := Ensure(ctx(t), Spec{Main: main, Path: wt, Branch: "teamctl/t/" + name}); err != nil {
		t.Fatal(err)
	}
	for p, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(wt, p)), 0o755)
		if err := os.WriteFile(filepath.Join(wt, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return wt
}

// commitFiles commits files (name → content) in dir.
func commitFiles(t *testing.T, dir, msg string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644)
	}
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", msg)
}

// TestTryMergeOfUncommittedWork: two members' uncommitted edits, merged
// without a checkout: the same lines of one file (an awkward name among them)
// conflict, edits far apart in another merge, a file one alone touches is in
// neither list; each member's work against its base branch, which moved
// since, conflicts where main changed the same line. The commits made to
// compare are the same each time and named by no ref; nothing of either
// member, nor of the main checkout, changes.
func TestTryMergeOfUncommittedWork(t *testing.T) {
	t.Parallel()
	main := repo(t)
	c := ctx(t)
	if err := CheckMergeTree(c); err != nil {
		t.Skip(err) // the machine's git is older: TestOldGitIsSaid covers that
	}
	lines := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	odd := "caf\xe9 \"quoted\"\nname.txt"
	commitFiles(t, main, "shared files", map[string]string{"app.go": lines, "far.go": lines, odd: lines})
	dirtyMain(t, main)
	a := member(t, main, "a", map[string]string{
		"app.go": strings.Replace(lines, "5\n", "five by a\n", 1),
		"far.go": strings.Replace(lines, "1\n", "one by a\n", 1),
		odd:      strings.Replace(lines, "2\n", "two by a\n", 1),
		"a.go":   "only a\n",
	})
	b := member(t, main, "b", map[string]string{
		"app.go": strings.Replace(lines, "5\n", "five by b\n", 1),
		"far.go": strings.Replace(lines, "10\n", "ten by b\n", 1),
		odd:      strings.Replace(lines, "2\n", "two by b\n", 1),
		"b.go":   "only b\n",
	})
	check := untouched(t, main, a, b)
	refs := run(t, main, "for-each-ref")
	defer func() {
		if got := run(t, main, "for-each-ref", "refs/teamctl/"); got != "" {
			t.Errorf("refs made:\n%s", got)
		}
	}()

	commit := func(wt, branch string) string {
		t.Helper()
		w, err := ReadWork(c, main, wt, branch)
		if err != nil {
			t.Fatal(err)
		}
		commit, err := w.Commit(c, main)
		if err != nil || commit == w.Head {
			t.Fatalf("commit of the work: %s, %v", commit, err)
		}
		if again, _ := w.Commit(c, main); again != commit {
			t.Errorf("the same work made two commits, %s and %s", commit, again)
		}
		return commit
	}
	ca, cb := commit(a, "teamctl/t/a"), commit(b, "teamctl/t/b")
	m, err := TryMerge(c, main, ca, cb)
	if err != nil {
		t.Fatal(err)
	}
	want := []Conflict{{Path: "app.go", Kind: "contents"}, {Path: odd, Kind: "contents"}}
	slices.SortFunc(m.Conflicts, func(x, y Conflict) int { return strings.Compare(x.Path, y.Path) })
	if !slices.Equal(m.Conflicts, want) {
		t.Errorf("conflicts %q, want %q", m.Conflicts, want)
	}
	slices.Sort(m.Both)
	if wantBoth := []string{"app.go", odd, "far.go"}; !slices.Equal(m.Both, wantBoth) {
		t.Errorf("both touch %q, want %q", m.Both, wantBoth)
	}

	if got := run(t, main, "for-each-ref"); got != refs {
		t.Errorf("refs changed:\n%s\n→\n%s", refs, got)
	}
	check()

	// The base moved: main's own commit on a's line 5.
	run(t, main, "stash", "-q", "-u") // the person's edits aside, to commit on main; back below
	commitFiles(t, main, "main moves", map[string]string{"app.go": strings.Replace(lines, "5\n", "five on main\n", 1)})
	run(t, main, "stash", "pop", "-q")
	base, err := FindBase(c, main, "main")
	if err != nil {
		t.Fatal(err)
	}
	m, err = TryMerge(c, main, ca, base.Commit)
	if err != nil || len(m.Conflicts) != 1 || m.Conflicts[0] != (Conflict{"app.go", "contents"}) {
		t.Errorf("a against main as it moved: %+v, %v", m, err)
	}
	if m, err := TryMerge(c, main, ca, ca); err != nil || len(m.Both)+len(m.Conflicts) != 0 {
		t.Errorf("a with itself: %+v, %v", m, err)
	}
}

// TestTryMergeOfKinds: a file one side deletes and the other changes, and a
// binary file both change, are conflicts of their kind; histories with
// nothing in common are ErrUnrelated.
func TestTryMergeOfKinds(t *testing.T) {
	t.Parallel()
	main := repo(t)
	c := ctx(t)
	if err := CheckMergeTree(c); err != nil {
		t.Skip(err)
	}
	commitFiles(t, main, "files", map[string]string{"gone.txt": "x\n", "pic.bin": "\x00\x01\x02"})
	a := member(t, main, "a", map[string]string{"pic.bin": "\x00\x01a"})
	os.Remove(filepath.Join(a, "gone.txt"))
	b := member(t, main, "b", map[string]string{"pic.bin": "\x00\x01b", "gone.txt": "changed\n"})
	wa, _ := ReadWork(c, main, a, "teamctl/t/a")
	wb, _ := ReadWork(c, main, b, "teamctl/t/b")
	ca, _ := wa.Commit(c, main)
	cb, _ := wb.Commit(c, main)
	m, err := TryMerge(c, main, ca, cb)
	slices.SortFunc(m.Conflicts, func(x, y Conflict) int { return strings.Compare(x.Path, y.Path) })
	if want := []Conflict{{"gone.txt", "modify/delete"}, {"pic.bin", "binary"}}; err != nil || !slices.Equal(m.Conflicts, want) {
		t.Errorf("conflicts %q, %v; want %q", m.Conflicts, err, want)
	}
	run(t, main, "checkout", "-q", "--orphan", "other")
	run(t, main, "commit", "-q", "--allow-empty", "-m", "unrelated")
	other := strings.TrimSpace(run(t, main, "rev-parse", "HEAD"))
	if _, err := TryMerge(c, main, ca, other); !errors.Is(err, ErrUnrelated) {
		t.Errorf("unrelated histories: %v", err)
	}
	if _, err := MergeBase(c, main, ca, other); !errors.Is(err, ErrUnrelated) {
		t.Errorf("merge base of unrelated histories: %v", err)
	}
}

// TestOldGitIsSaid: a git older than 2.38 is refused, naming its version and
// the one needed.
func TestOldGitIsSaid(t *testing.T) {
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\necho 'git version 2.34.1'\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	err := CheckMergeTree(ctx(t))
	var old *OldGitError
	if !errors.As(err, &old) || old.Version != "2.34.1" || !strings.Contains(err.Error(), "git 2.34.1 is too old") || !strings.Contains(err.Error(), "git 2.38 or later") {
		t.Errorf("CheckMergeTree with git 2.34.1: %v", err)
	}
	for v, ok := range map[string]bool{"2.38.0": true, "2.39.5": true, "3.0": true, "2.45.1.windows.1": true, "2.37.7": false, "1.99": false, "x": false, "2": false} {
		if versionAtLeast(v, MergeTreeGit) != ok {
			t.Errorf("versionAtLeast(%q) != %v", v, ok)
		}
	}
}

// TestDiffOfASubmodule: a submodule added in a worktree is one change, said
// to be one, and its files are not followed.
func TestDiffOfASubmodule(t *testing.T) {
	t.Parallel()
	main := repo(t)
	c := ctx(t)
	sub := repo(t)
	os.WriteFile(filepath.Join(sub, "inner.txt"), []byte("inside\n"), 0o644)
	run(t, sub, "add", ".")
	run(t, sub, "commit", "-q", "-m", "inner")
	wt := member(t, main, "a", nil)
	run(t, wt, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "dep")
	w, err := ReadWork(c, main, wt, "teamctl/t/a")
	if err != nil {
		t.Fatal(err)
	}
	files, err := DiffFiles(c, main, w.Head, w.Tree)
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(files); !slices.Equal(got, []string{".gitmodules", "dep"}) || !byPath(files, "dep").Submodule || byPath(files, ".gitmodules").Submodule {
		t.Errorf("files %+v", files)
	}
	if p, _ := Patch(c, main, w.Head, w.Tree); !strings.Contains(p, "+Subproject commit ") || strings.Contains(p, "inside") {
		t.Errorf("patch:\n%s", p)
	}
}
