package worktrees

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestFolderTreeIsAddsTree: the tree of a folder made from HEAD's and what
// status says (planTree, treeMaker) is, in every case it takes, the tree
// add --all and write-tree make through a copy of the index — and the cases
// it leaves to them are left (errNoPlan), where ReadWork's tree is theirs
// still. Then the folders all read at once (ReadWorks: one batch of trees,
// two folders on the same HEAD among them) give the same trees.
func TestFolderTreeIsAddsTree(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"sha1", "sha256"} {
		for _, attrs := range []bool{true, false} {
			if testing.Short() && (format == "sha1" || attrs) {
				// One of four: SHA-256, files hashed by teamctl, and by git
				// where an ignored .gitattributes applies.
				continue
			}
			t.Run(fmt.Sprintf("%s attributes=%v", format, attrs), func(t *testing.T) {
				t.Parallel()
				folderTrees(t, format, attrs)
			})
		}
	}
}

// folderTrees is TestFolderTreeIsAddsTree in a repository of format, with
// a .gitattributes or without (then files are hashed by teamctl, rawBlobs).
func folderTrees(t *testing.T, format string, attrs bool) {
	c := ctx(t)
	main := t.TempDir()
	run(t, main, "init", "-q", "-b", "main", "--object-format="+format)
	run(t, main, "config", "user.email", "t@example.invalid")
	run(t, main, "config", "user.name", "t")
	// A clean filter, which hash-object runs as add does.
	run(t, main, "config", "filter.upper.clean", "tr a-z A-Z")
	put := func(dir, name, body string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		os.Remove(p)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
	}
	for _, f := range []string{"top.txt", "a/one.txt", "a/two.txt", "a/b/deep.txt", "a/b/c/deeper.txt", "gone/only.txt", "gone/sub/also.txt", "f", "dir/x", "staged.txt", "mv.txt", "crlf.txt", "keep/k.txt"} {
		put(main, f, "committed "+f+"\n", 0o644)
	}
	put(main, "run.sh", "#!/bin/sh\n", 0o755)
	if attrs {
		put(main, ".gitattributes", "*.up filter=upper\n", 0o644)
	}
	put(main, "note.up", "lower\n", 0o644)
	if err := os.Symlink("top.txt", filepath.Join(main, "link")); err != nil {
		t.Fatal(err)
	}
	run(t, main, "add", "-A")
	run(t, main, "commit", "-q", "-m", "files")
	for _, pattern := range []string{"/" + DefaultFolder + "/", "/ign/.gitattributes"} {
		if err := Exclude(filepath.Join(main, ".git"), pattern); err != nil {
			t.Fatal(err)
		}
	}

	cases := []struct {
		name    string
		planned bool
		change  func(wt string)
	}{
		{"staged, unstaged, both, deleted", true, func(wt string) {
			put(wt, "staged.txt", "staged\n", 0o644)
			run(t, wt, "add", "staged.txt")
			put(wt, "a/one.txt", "unstaged\n", 0o644)
			put(wt, "a/b/deep.txt", "staged first\n", 0o644)
			run(t, wt, "add", "a/b/deep.txt")
			put(wt, "a/b/deep.txt", "then changed\n", 0o644)
			os.Remove(filepath.Join(wt, "a/two.txt"))
			run(t, wt, "rm", "-q", "top.txt")
			run(t, wt, "rm", "-q", "keep/k.txt")
			put(wt, "keep/k.txt", "made again\n", 0o644)
		}},
		{"new files in new folders, awkward names", true, func(wt string) {
			put(wt, "new/deeper/still/n.txt", "new\n", 0o644)
			put(wt, "a/b/c/new.txt", "new\n", 0o644)
			put(wt, "with space.txt", "s\n", 0o644)
			put(wt, "ünï cødé.txt", "u\n", 0o644)
			put(wt, "quote\"in.txt", "q\n", 0o644)
			put(wt, "tab\there.txt", "t\n", 0o644)
			put(wt, "a-", "sorts before the folder a, as a/\n", 0o644)
			put(wt, "a0", "and after it\n", 0o644)
			put(wt, "empty.txt", "", 0o644)
			put(wt, "medium.txt", strings.Repeat("more than a stored block holds\n", 5000), 0o644)
		}},
		{"exec bits", true, func(wt string) {
			os.Chmod(filepath.Join(wt, "top.txt"), 0o755)
			os.Chmod(filepath.Join(wt, "run.sh"), 0o644)
			os.Chmod(filepath.Join(wt, "a/one.txt"), 0o755)
			run(t, wt, "add", "a/one.txt")
		}},
		{"folders emptied", true, func(wt string) {
			os.RemoveAll(filepath.Join(wt, "gone"))
			run(t, wt, "rm", "-q", "-r", "a/b")
		}},
		{"a file becomes a folder, a folder a file", true, func(wt string) {
			os.Remove(filepath.Join(wt, "f"))
			put(wt, "f/inner.txt", "inner\n", 0o644)
			os.RemoveAll(filepath.Join(wt, "dir"))
			put(wt, "dir", "a file now\n", 0o644)
		}},
		{"staged renames, one changed since", true, func(wt string) {
			os.Mkdir(filepath.Join(wt, "moved"), 0o755)
			run(t, wt, "mv", "mv.txt", "moved/mv.txt")
			run(t, wt, "mv", "a/two.txt", "two.txt")
			put(wt, "two.txt", "changed after the move\n", 0o644)
		}},
		{"intent to add, a staged symlink, a filter", true, func(wt string) {
			put(wt, "ita.txt", "intent\n", 0o644)
			run(t, wt, "add", "-N", "ita.txt")
			os.Remove(filepath.Join(wt, "link"))
			os.Symlink("a/one.txt", filepath.Join(wt, "link"))
			run(t, wt, "add", "link")
			put(wt, "note.up", "changed lower\n", 0o644)
			put(wt, "new.up", "new lower\n", 0o644)
		}},
		{"left out", true, func(wt string) {
			put(wt, "small.txt", "taken\n", 0o644)
			os.MkdirAll(filepath.Join(wt, "vendor", "dep"), 0o755)
			run(t, filepath.Join(wt, "vendor", "dep"), "init", "-q")
			put(wt, "vendor/dep/x.go", "package dep\n", 0o644)
			for _, f := range []string{"big.img", "staged.txt"} {
				put(wt, f, "", 0o644)
				if err := os.Truncate(filepath.Join(wt, f), MaxSnapshotFile+1); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"an ignored .gitattributes", true, func(wt string) {
			// Not listed by status, read by git all the same.
			put(wt, "ign/.gitattributes", "*.txt filter=upper\n", 0o644)
			put(wt, "ign/f.txt", "lower\n", 0o644)
		}},
		{"only deletions", true, func(wt string) {
			for _, f := range []string{"top.txt", "a/one.txt", "run.sh", "link"} {
				os.Remove(filepath.Join(wt, f))
			}
		}},
		{"unmerged", false, func(wt string) {
			put(wt, "staged.txt", "theirs\n", 0o644)
			run(t, wt, "commit", "-q", "-a", "-m", "theirs")
			run(t, wt, "checkout", "-q", "-b", "mine-"+filepath.Base(wt), "HEAD~1")
			put(wt, "staged.txt", "mine\n", 0o644)
			run(t, wt, "commit", "-q", "-a", "-m", "mine")
			gitAllowFail(t, wt, "merge", "-q", "teamctl/t/unmerged")
			put(wt, "other.txt", "beside it\n", 0o644)
		}},
		{"an untracked symlink", false, func(wt string) {
			os.Symlink("top.txt", filepath.Join(wt, "newlink"))
		}},
		{"a file becomes a symlink", false, func(wt string) {
			os.Remove(filepath.Join(wt, "top.txt"))
			os.Symlink("a/one.txt", filepath.Join(wt, "top.txt"))
		}},
		{"a carriage return", false, func(wt string) {
			put(wt, "crlf.txt", "line\r\n", 0o644)
		}},
		{".gitattributes changed", false, func(wt string) {
			put(wt, ".gitattributes", "*.txt filter=upper\n", 0o644)
			put(wt, "top.txt", "changed\n", 0o644)
		}},
		{"a new executable", false, func(wt string) {
			put(wt, "new.sh", "#!/bin/sh\n", 0o755)
		}},
	}
	var specs []WorkSpec
	var want []string
	for _, tc := range cases {
		branch := "teamctl/t/" + strings.ReplaceAll(strings.ReplaceAll(tc.name, " ", "-"), ",", "")
		branch = strings.ReplaceAll(branch, ".", "dot")
		wt := filepath.Join(main, DefaultFolder, "t", strings.TrimPrefix(branch, "teamctl/t/"))
		if tc.name == "unmerged" {
			branch = "teamctl/t/unmerged"
		}
		if _, err := Ensure(c, Spec{Main: main, Path: wt, Branch: branch}); err != nil {
			t.Fatal(err)
		}
		tc.change(wt)
		head := strings.TrimSpace(run(t, wt, "rev-parse", "HEAD"))
		l, deleted, entries, err := changes(c, wt)
		if err != nil {
			t.Fatal(err)
		}
		listed := append(l.Changed, l.Untracked...)
		leftOut := LeftOutOf(wt, listed)
		adds, err := stateTree(c, wt, head, leftOut)
		if err != nil {
			t.Fatalf("%s: add --all: %v", tc.name, err)
		}
		m := newTreeMaker(main)
		p, err := planTree(c, m, wt, head, entries, leftOut, toAdd(listed, deleted, leftOut))
		switch {
		case !tc.planned && !errors.Is(err, errNoPlan):
			t.Errorf("%s: planned (%v), want it left to add", tc.name, err)
		case tc.planned && err != nil:
			t.Errorf("%s: not planned: %v", tc.name, err)
		case tc.planned:
			if hashes := len(p.blobs) > 0; hashes && (attrs || tc.name == "an ignored .gitattributes") {
				t.Errorf("%s: files hashed by teamctl where attributes may apply", tc.name)
			} else if !hashes && !attrs && tc.name == "new files in new folders, awkward names" {
				t.Errorf("%s: files hashed by git where no attributes apply", tc.name)
			}
			tree, _, err := m.make(c, p)
			if err == nil {
				err = m.finish(c)
			}
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			} else if tree != adds {
				t.Errorf("%s: tree %s, add --all's %s:\n%s\n%s", tc.name, tree, adds, run(t, wt, "ls-tree", "-r", tree), run(t, wt, "ls-tree", "-r", adds))
			}
		}
		if !testing.Short() || len(specs) == 0 || !tc.planned {
			// One folder read alone (its own cat-file), as ReadWork reads.
			w, err := ReadWork(c, main, wt, branch)
			if err != nil || w.Tree != adds {
				t.Errorf("%s: ReadWork's tree %s, %v; add --all's %s", tc.name, w.Tree, err, adds)
			}
		}
		specs, want = append(specs, WorkSpec{Path: wt, Branch: branch}), append(want, adds)
	}
	// Two folders on one HEAD: each from HEAD's trees, not the other's.
	for _, name := range []string{"same1", "same2"} {
		wt := filepath.Join(main, DefaultFolder, "t", name)
		if _, err := Ensure(c, Spec{Main: main, Path: wt, Branch: "teamctl/t/" + name}); err != nil {
			t.Fatal(err)
		}
		put(wt, "a/"+name+".txt", name+"\n", 0o644)
		put(wt, "a/one.txt", name+"\n", 0o644)
		head := strings.TrimSpace(run(t, wt, "rev-parse", "HEAD"))
		adds, err := stateTree(c, wt, head, nil)
		if err != nil {
			t.Fatal(err)
		}
		specs, want = append(specs, WorkSpec{Path: wt, Branch: "teamctl/t/" + name}), append(want, adds)
	}
	done := untouched(t, main)
	works, errs := ReadWorks(c, main, specs, 3)
	for i := range specs {
		if errs[i] != nil || works[i].Tree != want[i] {
			t.Errorf("ReadWorks of %s: tree %s, %v; add --all's %s", specs[i].Path, works[i].Tree, errs[i], want[i])
		}
	}
	done()
}

// TestComposeIsTheTreesDiff: what a member's work changed since the base,
// made of what its head changed (headChanges) and what its folder changes
// (compose), is what git diff-tree says of the work's tree, over random
// committed and uncommitted changes — files changed, added, deleted, moved
// (staged or not), a folder moved, a file made a folder.
func TestComposeIsTheTreesDiff(t *testing.T) {
	t.Parallel()
	seeds := 8
	if testing.Short() {
		seeds = 1
	}
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			c := ctx(t)
			main := branchRepo(t)
			if err := Exclude(filepath.Join(main, ".git"), "/"+DefaultFolder+"/"); err != nil {
				t.Fatal(err)
			}
			base := strings.TrimSpace(run(t, main, "rev-parse", "HEAD"))
			r := rand.New(rand.NewPCG(uint64(seed), 11))
			var specs []WorkSpec
			for k := range 6 {
				name := fmt.Sprintf("w%d", k)
				wt := randomWorktree(t, c, main, r, name, r.IntN(4), func() int { return r.IntN(6) })
				if r.IntN(2) == 0 {
					// Staged, then one file changed again.
					run(t, wt, "add", "-A")
					if files := strings.Fields(run(t, wt, "ls-files")); len(files) > 0 {
						if f := files[r.IntN(len(files))]; fileExists(filepath.Join(wt, f)) {
							edit(t, wt, f, r.IntN(10), "changed after staging")
						}
					}
				}
				specs = append(specs, WorkSpec{Path: wt, Branch: "teamctl/t/" + name})
			}
			works, errs := ReadWorks(c, main, specs, 2)
			heads := []string{base}
			for i, w := range works {
				if errs[i] != nil {
					t.Fatal(errs[i])
				}
				heads = append(heads, w.Head)
			}
			h, err := walk(c, main, heads)
			if err != nil {
				t.Fatal(err)
			}
			if h.changed, err = headChanges(c, main, h, heads); err != nil {
				t.Fatal(err)
			}
			baseTree := h.trees[h.base]
			for i, w := range works {
				s := WorkSide(specs[i].Path, main, w)
				if s.Tree != "" && s.edits == nil {
					t.Errorf("%s: its tree was not made from its head's", s.Name)
				}
				got, ok := h.compose(s)
				if !ok {
					t.Errorf("%s: not composed", s.Name)
					continue
				}
				tree := s.Tree
				if tree == "" {
					tree = strings.TrimSpace(run(t, main, "rev-parse", s.Head+"^{tree}"))
				}
				byTree, err := diffTrees(c, main, baseTree, []string{tree})
				if err != nil {
					t.Fatal(err)
				}
				want, ok := byTree[tree]
				if !ok {
					want = newPathChanges()
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s (%d files uncommitted): composed %+v\ngit diff-tree %+v\n%s", s.Name, w.Files, got, want, run(t, main, "diff-tree", "-r", "--no-renames", "--name-status", baseTree, tree))
				}
			}
		})
	}
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// uncommittedChange is randomChange for work not committed after: git
// commands that may refuse a file changed before (rm, mv) are forced.
func uncommittedChange(t *testing.T, r *rand.Rand, dir string) {
	t.Helper()
	files := strings.Fields(run(t, dir, "ls-files"))
	folders := []string{"", "a", "d", "d/s", "e", "n"}
	to := filepath.Join(folders[r.IntN(len(folders))], fmt.Sprintf("u%d.go", r.IntN(4)))
	if len(files) == 0 || r.IntN(6) == 0 {
		write(t, dir, to, lines10(to))
		return
	}
	f := files[r.IntN(len(files))]
	if !fileExists(filepath.Join(dir, f)) {
		return
	}
	switch r.IntN(6) {
	case 0, 1:
		edit(t, dir, f, r.IntN(10), fmt.Sprintf("uncommitted %d", r.IntN(3)))
	case 2:
		run(t, dir, "rm", "-q", "-f", f)
	case 3:
		os.Remove(filepath.Join(dir, f))
	case 4:
		if !fileExists(filepath.Join(dir, to)) {
			os.MkdirAll(filepath.Dir(filepath.Join(dir, to)), 0o755)
			os.Rename(filepath.Join(dir, f), filepath.Join(dir, to))
		}
	case 5:
		os.Remove(filepath.Join(dir, f))
		write(t, dir, f+"/now-a-folder.go", "x\n")
	}
}

// TestCompareWorktreesIsTryMerge: what CompareWorktrees says of each pair of
// members, and of each against its base that moved on, is what git
// merge-tree says of their work as commits made the old way (add --all in a
// copy of the index, write-tree), over random committed and uncommitted
// changes.
func TestCompareWorktreesIsTryMerge(t *testing.T) {
	t.Parallel()
	seeds := 4
	if testing.Short() {
		seeds = 1
	}
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			c := ctx(t)
			main := branchRepo(t)
			if err := Exclude(filepath.Join(main, ".git"), "/"+DefaultFolder+"/"); err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(uint64(seed), 13))
			var members []Member
			for k := range 5 {
				name := fmt.Sprintf("m%d", k)
				wt := randomWorktree(t, c, main, r, name, r.IntN(3), func() int { return 1 + r.IntN(4) })
				members = append(members, Member{Name: name, Path: wt, Branch: "teamctl/t/" + name, Base: "main"})
			}
			randomChange(t, r, main) // the base moves on
			run(t, main, "add", "-A")
			run(t, main, "commit", "-q", "--allow-empty", "-m", "main moves")
			got, err := CompareWorktrees(c, main, members, 2)
			if err != nil {
				t.Fatal(err)
			}
			commits := make([]string, len(members))
			for i, m := range members {
				if got.Errs[i] != nil {
					t.Fatal(got.Errs[i])
				}
				w := got.Works[i]
				commits[i] = w.Head
				if w.Files > 0 {
					tree, err := stateTree(c, m.Path, w.Head, w.LeftOut)
					if err == nil {
						commits[i], err = workCommit(c, main, w.Head, tree, w.Path)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, p := range got.Pairs {
				want, err := TryMerge(c, main, commits[p.Pair[0]], commits[p.Pair[1]])
				if err != nil || p.Err != nil {
					t.Fatal(err, p.Err)
				}
				if !reflect.DeepEqual(p.Merge, want) {
					t.Errorf("%s+%s: %+v (merge-tree run: %v), git merge-tree %+v", members[p.Pair[0]].Name, members[p.Pair[1]].Name, p.Merge, p.Ran, want)
				}
			}
			base := strings.TrimSpace(run(t, main, "rev-parse", "main"))
			for _, b := range got.AgainstBase {
				want, err := TryMerge(c, main, commits[b.Member], base)
				if err != nil || b.Err != nil {
					t.Fatal(err, b.Err)
				}
				if !reflect.DeepEqual(b.Merge, want) {
					t.Errorf("%s against main: %+v, git merge-tree %+v", members[b.Member].Name, b.Merge, want)
				}
			}
			t.Logf("%d pairs, %d against the base", len(got.Pairs), len(got.AgainstBase))
		})
	}
}

// TestReadPlainFollowsNoLink: a folder's file is read for its tree only as
// a regular file of the worktree, at most maxRawBlob bytes: a link (to a
// file outside, or a folder on the way that is one) or a larger file is
// not read, and its folder's tree left to add.
func TestReadPlainFollowsNoLink(t *testing.T) {
	top, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("not the worktree's"), 0o600); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(top, "plain"), []byte("hello\n"), 0o600))
	must(os.Symlink(secret, filepath.Join(top, "link")))
	must(os.Symlink(outside, filepath.Join(top, "dir")))
	must(os.WriteFile(filepath.Join(top, "big"), make([]byte, maxRawBlob+1), 0o600))
	root, err := os.OpenRoot(top)
	must(err)
	defer root.Close()
	if b, err := readPlain(root, "plain"); err != nil || string(b) != "hello\n" {
		t.Errorf("plain: %q %v", b, err)
	}
	for _, name := range []string{"link", "dir/secret", "big", "gone"} {
		if b, err := readPlain(root, name); err == nil {
			t.Errorf("%s read: %q", name, b)
		}
	}
}

// randomWorktree makes worktree name of main on branch teamctl/t/<name>
// with committed random changes (a commit of them, maybe empty), then
// uncommitted() uncommitted ones, and returns its folder.
func randomWorktree(t *testing.T, c context.Context, main string, r *rand.Rand, name string, committed int, uncommitted func() int) string {
	t.Helper()
	wt := filepath.Join(main, DefaultFolder, "t", name)
	if _, err := Ensure(c, Spec{Main: main, Path: wt, Branch: "teamctl/t/" + name}); err != nil {
		t.Fatal(err)
	}
	for range committed {
		randomChange(t, r, wt)
	}
	run(t, wt, "add", "-A")
	run(t, wt, "commit", "-q", "--allow-empty", "-m", name)
	for range uncommitted() {
		uncommittedChange(t, r, wt)
	}
	return wt
}
