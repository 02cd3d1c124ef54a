package worktrees

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// branchRepo is a repository whose first commit has files in folders, for
// branches to change.
func branchRepo(t *testing.T) string {
	t.Helper()
	main := repo(t)
	for _, p := range []string{"top.go", "a/x.go", "a/y.go", "d/one.go", "d/two.go", "d/s/deep.go", "e/keep.go", "img.bin", oddName} {
		write(t, main, p, lines10(p))
	}
	run(t, main, "add", "-A")
	run(t, main, "commit", "-q", "-m", "files")
	return main
}

// oddName has a space, quotes, a newline and a byte that is not UTF-8.
const oddName = "o d/we\nird \"q\" \xff.go"

func lines10(name string) string {
	var b strings.Builder
	for i := range 10 {
		fmt.Fprintf(&b, "%s line %d\n", name, i)
	}
	return b.String()
}

func write(t *testing.T, dir, p, body string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
	if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// edit changes line n of the file p in dir.
func edit(t *testing.T, dir, p string, n int, to string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, p))
	if err != nil {
		t.Fatal(err)
	}
	l := strings.Split(string(b), "\n")
	l[n%len(l)] = to
	write(t, dir, p, strings.Join(l, "\n"))
}

// branch makes branch name from rev in main's checkout with what change
// does there, committed; it returns its head.
func branch(t *testing.T, main, name, rev string, change func(dir string)) string {
	t.Helper()
	run(t, main, "checkout", "-q", "-b", name, rev)
	change(main)
	run(t, main, "add", "-A")
	run(t, main, "commit", "-q", "--allow-empty", "-m", name)
	h := strings.TrimSpace(run(t, main, "rev-parse", "HEAD"))
	run(t, main, "checkout", "-q", "main")
	return h
}

// sameAsTryMerge checks CompareAll against TryMerge for every pair of sides:
// what it says must be what git merge-tree of the two commits says.
func sameAsTryMerge(t *testing.T, main string, sides []Side) []Compared {
	t.Helper()
	c := ctx(t)
	var pairs [][2]int
	for i := range sides {
		for j := i + 1; j < len(sides); j++ {
			pairs = append(pairs, [2]int{i, j})
		}
	}
	got, err := CompareAll(c, sides, pairs, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range got {
		a, b := sides[g.Pair[0]], sides[g.Pair[1]]
		ca, err1 := sideCommit(c, main, a)
		cb, err2 := sideCommit(c, main, b)
		if err := firstErr(err1, err2, g.Err); err != nil {
			t.Fatalf("%s+%s: %v", a.Name, b.Name, err)
		}
		want, err := TryMerge(c, main, ca, cb)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g.Merge, want) {
			t.Errorf("%s+%s: CompareAll says %+v (merge-tree run: %v), git merge-tree %+v", a.Name, b.Name, g.Merge, g.Ran, want)
		}
	}
	return got
}

func ran(got []Compared, sides []Side, a, b string) bool {
	for _, g := range got {
		if x, y := sides[g.Pair[0]].Name, sides[g.Pair[1]].Name; (x == a && y == b) || (x == b && y == a) {
			return g.Ran
		}
	}
	panic("no pair " + a + "+" + b)
}

// TestCompareAllIsTryMerge: each way two sides' changes can meet without
// touching the same path — a file where the other has a folder, a folder
// renamed where the other puts a file, a folder moved to the top — gets git
// merge-tree's own answer, and pairs apart are decided without it.
func TestCompareAllIsTryMerge(t *testing.T) {
	t.Parallel()
	main := branchRepo(t)
	base := strings.TrimSpace(run(t, main, "rev-parse", "HEAD"))
	side := func(name string, change func(dir string)) Side {
		return Side{Name: name, Main: main, Head: branch(t, main, name, base, change)}
	}
	sides := []Side{
		side("line1", func(d string) { edit(t, d, "a/x.go", 1, "one") }),
		side("line8", func(d string) { edit(t, d, "a/x.go", 8, "eight") }),
		side("line1too", func(d string) { edit(t, d, "a/x.go", 1, "uno") }),
		side("same", func(d string) { edit(t, d, "a/x.go", 1, "one") }),
		side("apart", func(d string) { edit(t, d, "e/keep.go", 3, "apart") }),
		side("fileatfolder", func(d string) { os.Remove(filepath.Join(d, "a/y.go")); write(t, d, "a/y.go/inside.go", "x\n") }),
		side("newfile", func(d string) { write(t, d, "n/file", "n\n") }),
		side("newfolder", func(d string) { write(t, d, "n/file/below", "n\n") }),
		side("renamedir", func(d string) { run(t, d, "mv", "d", "moved") }),
		side("intodir", func(d string) { write(t, d, "d/new.go", "new\n") }),
		side("intodeep", func(d string) { write(t, d, "d/s/new.go", "new\n") }),
		side("totop", func(d string) {
			run(t, d, "mv", "e/keep.go", "keep.go")
		}),
		side("deltop", func(d string) { run(t, d, "rm", "-q", "top.go") }),
		side("binary", func(d string) { write(t, d, "img.bin", "\x00\x01\x02") }),
		side("binary2", func(d string) { write(t, d, "img.bin", "\x00\x03\x04") }),
		side("nothing", func(string) {}),
		side("odd1", func(d string) { edit(t, d, oddName, 4, "odd one") }),
		side("odd2", func(d string) { edit(t, d, oddName, 4, "odd two") }),
		{Name: "base", Main: main, Head: base},
	}
	// Uncommitted work: a tree on the base, as a worktree's files are.
	work := branch(t, main, "worktree", base, func(d string) { edit(t, d, "a/y.go", 2, "uncommitted") })
	sides = append(sides, Side{Name: "uncommitted", Main: main, Head: base, Tree: strings.TrimSpace(run(t, main, "rev-parse", work+"^{tree}")), Path: "/somewhere"})
	// A branch from a later base, and one holding another's commit.
	later := branch(t, main, "later", base, func(d string) { edit(t, d, "d/two.go", 5, "later") })
	sides = append(sides, Side{Name: "fromlater", Main: main, Head: branch(t, main, "fromlater", later, func(d string) { edit(t, d, "e/keep.go", 9, "x") })})
	sides = append(sides, Side{Name: "merged", Main: main, Head: branch(t, main, "merged", "line8", func(d string) { write(t, d, "m.go", "m\n") })})
	sides = append(sides, Side{Name: "fromline8", Main: main, Head: branch(t, main, "fromline8", "line8", func(d string) { edit(t, d, "e/keep.go", 1, "x") })})

	got := sameAsTryMerge(t, main, sides)
	for _, g := range got {
		if sides[g.Pair[0]].Name == "odd1" && sides[g.Pair[1]].Name == "odd2" && (len(g.Merge.Conflicts) != 1 || g.Merge.Conflicts[0].Path != oddName) {
			t.Errorf("odd1+odd2: %+v, want a conflict in %q", g.Merge, oddName)
		}
	}
	for _, p := range [][2]string{{"line1", "line1too"}, {"line1", "line8"}, {"fileatfolder", "uncommitted"}, {"newfile", "newfolder"},
		{"renamedir", "intodir"}, {"renamedir", "intodeep"}, {"merged", "fromline8"}, {"binary", "binary2"}, {"odd1", "odd2"}} {
		if !ran(got, sides, p[0], p[1]) {
			t.Errorf("%s+%s was decided without git merge-tree", p[0], p[1])
		}
	}
	for _, p := range [][2]string{{"line1", "apart"}, {"nothing", "line1"}, {"base", "binary"}, {"uncommitted", "line1"}, {"fromlater", "line1"}, {"merged", "line8"}, {"odd1", "line1"}} {
		if ran(got, sides, p[0], p[1]) {
			t.Errorf("%s+%s, apart, ran git merge-tree", p[0], p[1])
		}
	}
}

// TestCompareAllOnRandomBranches: on branches of random changes (edits,
// new and deleted files, renames of files and folders, files turned into
// folders), CompareAll always says what git merge-tree says.
func TestCompareAllOnRandomBranches(t *testing.T) {
	t.Parallel()
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			main := branchRepo(t)
			base := strings.TrimSpace(run(t, main, "rev-parse", "HEAD"))
			r := rand.New(rand.NewPCG(uint64(seed), 7))
			var sides []Side
			for k := range 7 {
				name := fmt.Sprintf("b%d", k)
				sides = append(sides, Side{Name: name, Main: main, Head: branch(t, main, name, base, func(d string) {
					for range 1 + r.IntN(3) {
						randomChange(t, r, d)
					}
				})})
			}
			got := sameAsTryMerge(t, main, sides)
			n := 0
			for _, g := range got {
				if g.Ran {
					n++
				}
			}
			t.Logf("%d of %d pairs merged by git, the others decided by the walk", n, len(got))
		})
	}
}

func randomChange(t *testing.T, r *rand.Rand, dir string) {
	t.Helper()
	files := strings.Fields(run(t, dir, "ls-files"))
	if len(files) == 0 {
		write(t, dir, "again.go", "again\n")
		return
	}
	f := files[r.IntN(len(files))]
	if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.IsDir() {
		return // taken by an earlier change of this branch, not yet added
	}
	folders := []string{"", "a", "d", "d/s", "e", "n"}
	to := filepath.Join(folders[r.IntN(len(folders))], fmt.Sprintf("r%d.go", r.IntN(4)))
	switch r.IntN(7) {
	case 0, 1:
		edit(t, dir, f, r.IntN(10), fmt.Sprintf("changed %d", r.IntN(3)))
	case 2:
		write(t, dir, to, lines10(to))
	case 3:
		run(t, dir, "rm", "-q", f)
	case 4:
		if _, err := os.Stat(filepath.Join(dir, to)); err != nil {
			os.MkdirAll(filepath.Dir(filepath.Join(dir, to)), 0o755)
			run(t, dir, "mv", f, to)
		}
	case 5:
		if d := filepath.Dir(f); d != "." {
			if _, err := os.Stat(filepath.Join(dir, "moved-"+filepath.Base(d))); err != nil {
				run(t, dir, "mv", d, "moved-"+filepath.Base(d))
			}
		}
	case 6:
		os.Remove(filepath.Join(dir, f))
		write(t, dir, f+"/now-a-folder.go", "x\n")
	}
}

func sideCommit(ctx context.Context, dir string, s Side) (string, error) {
	if s.Tree == "" {
		return s.Head, nil
	}
	return workCommit(ctx, dir, s.Head, s.Tree, s.Path)
}
