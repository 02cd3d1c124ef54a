package worktrees

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// awkward are file names a snapshot must carry as they are: a space, a
// newline, quotes, a byte that is not UTF-8, a leading dash.
var awkward = []string{"with space.txt", "new\nline.txt", `quo"te's.txt`, "caf\xe9.txt", "-dash.txt", "sub dir/deep file.txt"}

// binary is every byte value, twice.
var binary = func() []byte {
	var b []byte
	for range 2 {
		for i := range 256 {
			b = append(b, byte(i))
		}
	}
	return b
}()

// workInProgress makes a member's worktree holding every kind of work: a
// commit on its branch, a staged change, an unstaged one, a file staged then
// changed again, a deleted file, untracked files with awkward names, a binary
// file, a symlink, an executable, an ignored file, a file over
// MaxSnapshotFile (sparse: no disk spent) and a repository of its own. It
// returns the worktree.
func workInProgress(t *testing.T, main, team, member string) string {
	t.Helper()
	wt := filepath.Join(main, ".teamctl", "worktrees", team, member)
	if _, err := Ensure(ctx(t), Spec{Main: main, Path: wt, Branch: "teamctl/" + team + "/" + member}); err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(wt, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
	}
	write(".gitignore", []byte("*.log\n"), 0o644)
	for _, f := range []string{"staged.txt", "unstaged.txt", "twice.txt", "deleted.txt"} {
		write(f, []byte("committed "+f+"\n"), 0o644)
	}
	run(t, wt, "add", "-A")
	run(t, wt, "-c", "user.email=t@x", "-c", "user.name=t", "commit", "-q", "-m", "half-done feature")
	write("staged.txt", []byte("staged change\n"), 0o644)
	write("twice.txt", []byte("staged first\n"), 0o644)
	run(t, wt, "add", "staged.txt", "twice.txt")
	write("twice.txt", []byte("then changed again\n"), 0o644)
	write("unstaged.txt", []byte("unstaged change\n"), 0o644)
	os.Remove(filepath.Join(wt, "deleted.txt"))
	for _, f := range awkward {
		write(f, []byte("content of "+f), 0o644)
	}
	write("image.bin", binary, 0o644)
	write("run.sh", []byte("#!/bin/sh\necho hi\n"), 0o755)
	write("debug.log", []byte("ignored"), 0o644)
	if err := os.Symlink("with space.txt", filepath.Join(wt, "link")); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(wt, "disk.img")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(MaxSnapshotFile + 1)
	f.Close()
	os.MkdirAll(filepath.Join(wt, "vendor", "dep"), 0o755)
	run(t, filepath.Join(wt, "vendor", "dep"), "init", "-q")
	write("vendor/dep/x.go", []byte("package dep\n"), 0o644)
	return wt
}

// files maps each file under dir (not .git, nor what skip says) to what a
// person would compare: its kind, exec bit and bytes (a link's target).
func files(t *testing.T, dir string, skip func(rel string) bool) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" || (skip != nil && skip(rel)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		fi, _ := d.Info()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = "file exec=" + map[bool]string{true: "yes", false: "no"}[fi.Mode()&0o100 != 0] + " " + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type indexState struct {
	bytes  []byte
	mtime  time.Time
	status string
}

func indexOf(t *testing.T, wt string) indexState {
	t.Helper()
	gitdir, err := gitDir(wt)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(gitdir, "index")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	// GIT_OPTIONAL_LOCKS=0: this status must not refresh the index itself.
	cmd := exec.Command("git", "-C", wt, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	status, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return indexState{b, fi.ModTime(), string(status)}
}

// TestSnapshotTakesEveryFileAndTouchesNothing: a snapshot of a worktree
// holds its branch's commits and, in a commit on top, every file of its
// folder that is not ignored — staged, unstaged, untracked, awkward names,
// binary, links, exec bits — as restoring it shows, byte for byte; the
// member's index (bytes and mtime) and git status are as they were; a file
// over the limit and a repository of its own are left out and named; the
// ref is never overwritten.
func TestSnapshotTakesEveryFileAndTouchesNothing(t *testing.T) {
	t.Parallel()
	main := repo(t)
	c := ctx(t)
	wt := workInProgress(t, main, "t", "a")
	branchHead := strings.TrimSpace(run(t, main, "rev-parse", "teamctl/t/a"))
	leftOut := func(rel string) bool {
		return rel == "disk.img" || rel == filepath.Join("vendor", "dep") || rel == "debug.log"
	}
	want := files(t, wt, leftOut)
	before := indexOf(t, wt)

	at := time.Date(2026, 12, 1, 15, 47, 0, 0, time.UTC)
	ref, err := SnapshotRef("t", "a", at)
	if err != nil || ref != "refs/teamctl/snapshots/t/a/20261201T154700Z" {
		t.Fatalf("SnapshotRef = %q, %v", ref, err)
	}
	s, err := TakeSnapshot(c, main, wt, "teamctl/t/a", ref)
	if err != nil {
		t.Fatal(err)
	}
	after := indexOf(t, wt)
	if !bytes.Equal(before.bytes, after.bytes) || !before.mtime.Equal(after.mtime) {
		t.Errorf("the member's index changed: mtime %v → %v, bytes equal %v", before.mtime, after.mtime, bytes.Equal(before.bytes, after.bytes))
	}
	if before.status != after.status {
		t.Errorf("git status changed:\n%q\n→\n%q", before.status, after.status)
	}
	if got := files(t, wt, leftOut); !mapsEqual(got, want) {
		t.Errorf("the member's files changed")
	}

	if s.Head != branchHead || s.Commit == branchHead || s.Team != "t" || s.Member != "a" || !s.Time.Equal(at) {
		t.Errorf("snapshot %+v, want on %s", s, branchHead)
	}
	if parent := strings.TrimSpace(run(t, main, "rev-parse", ref+"^")); parent != branchHead {
		t.Errorf("the snapshot's parent is %s, not the branch head %s", parent, branchHead)
	}
	var out []string
	for _, l := range s.LeftOut {
		out = append(out, l.Path)
	}
	if !slices.Equal(out, []string{"disk.img", "vendor/dep/"}) || !strings.Contains(s.LeftOut[0].Why, "over 100 MiB") {
		t.Errorf("left out: %+v", s.LeftOut)
	}
	if strings.Contains(run(t, main, "branch", "--list", "--all"), "snapshot") {
		t.Error("a snapshot shows as a branch")
	}

	// Restored, it is every file as it was.
	dst := filepath.Join(t.TempDir(), "restored here")
	branch, err := Restore(c, main, s, dst)
	if err != nil || branch != "teamctl-restored/t/a/20261201T154700Z" {
		t.Fatalf("Restore = %q, %v", branch, err)
	}
	got := files(t, dst, nil)
	for name, w := range want {
		if got[name] != w {
			t.Errorf("restored %q: %.60q, want %.60q", name, got[name], w)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("restored %q, which was not there", name)
		}
	}
	if _, err := Restore(c, main, s, dst); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("restore onto an existing folder: %v", err)
	}

	list, err := Snapshots(c, main)
	if err != nil || len(list) != 1 || list[0].Ref != ref || list[0].Commit != s.Commit || !strings.HasPrefix(list[0].Subject, "teamctl snapshot of t/a/20261201T154700Z") {
		t.Errorf("Snapshots = %+v, %v", list, err)
	}
	if _, err := TakeSnapshot(c, main, wt, "teamctl/t/a", ref); err == nil {
		t.Error("a second snapshot under the same name overwrote the first")
	}
	if got := strings.TrimSpace(run(t, main, "rev-parse", ref)); got != s.Commit {
		t.Errorf("the ref moved to %s", got)
	}
	other, _ := SnapshotRef("t", "a", at.Add(time.Second))
	if _, err := TakeSnapshot(c, main, wt, "main", other); err == nil || !strings.Contains(err.Error(), "not on branch main") {
		t.Errorf("a worktree on another branch than asked: %v", err)
	}
}

// TestSnapshotOfABranchAlone: with the worktree's folder gone, a snapshot is
// a ref to the branch's head; a clean worktree's is its HEAD (no commit
// made). DeleteSnapshots deletes only refs still where they were seen.
func TestSnapshotOfABranchAlone(t *testing.T) {
	t.Parallel()
	main := repo(t)
	c := ctx(t)
	wt := filepath.Join(main, ".teamctl", "worktrees", "t", "b")
	if _, err := Ensure(c, Spec{Main: main, Path: wt, Branch: "teamctl/t/b"}); err != nil {
		t.Fatal(err)
	}
	run(t, wt, "-c", "user.email=t@x", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "unmerged")
	head := strings.TrimSpace(run(t, main, "rev-parse", "teamctl/t/b"))
	at := time.Now()
	ref1, _ := SnapshotRef("t", "b", at)
	s, err := TakeSnapshot(c, main, wt, "teamctl/t/b", ref1)
	if err != nil || s.Commit != head || s.Files != 0 {
		t.Fatalf("clean worktree: %+v, %v; want the branch head %s", s, err, head)
	}
	if err := Remove(c, main, wt, false); err != nil {
		t.Fatal(err)
	}
	ref2, _ := SnapshotRef("t", "b", at.Add(time.Second))
	if s, err = TakeSnapshot(c, main, "", "teamctl/t/b", ref2); err != nil || s.Commit != head {
		t.Fatalf("folder gone: %+v, %v; want the branch head %s", s, err, head)
	}
	if _, err := TakeSnapshot(c, main, "", "--all", ref2+"x"); err == nil {
		t.Error("a branch name starting with - reached git")
	}

	// One moved since it was seen: nothing is deleted.
	run(t, main, "update-ref", ref2, "main")
	if err := DeleteSnapshots(c, main, map[string]string{ref1: head, ref2: head}); err == nil {
		t.Error("deleted a snapshot that moved since it was seen")
	}
	if list, _ := Snapshots(c, main); len(list) != 2 {
		t.Errorf("after a failed delete: %+v", list)
	}
	if err := DeleteSnapshots(c, main, map[string]string{ref1: head}); err != nil {
		t.Fatal(err)
	}
	if list, _ := Snapshots(c, main); len(list) != 1 || list[0].Ref != ref2 {
		t.Errorf("after deleting %s: %+v", ref1, list)
	}
	if err := DeleteSnapshots(c, main, map[string]string{"refs/heads/main": head}); err == nil || !BranchExists(c, main, "main") {
		t.Errorf("DeleteSnapshots took a branch: %v", err)
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	for name, ok := range map[string]bool{
		"teamctl/auth-fix/alice": true, "fix/auth": true, "worktree-agent+x": true, "v1.2": true,
		"-f": false, "a..b": false, "a b": false, "a\nb": false, "a/": false, ".a": false,
		"a.lock": false, "a.lock/b": false, "HEAD": false, "a@{1}": false, "": false, "a//b": false, "a/.b": false,
	} {
		if err := CheckBranch(name); (err == nil) != ok {
			t.Errorf("CheckBranch(%q) = %v, want ok=%v", name, err, ok)
		}
	}
	for _, c := range []struct{ team, member string }{{"t", "a/b"}, {"t", ".."}, {"-x", "a"}, {"t", "a.lock"}, {"", "a"}, {"t", "a\n"}} {
		if ref, err := SnapshotRef(c.team, c.member, time.Now()); err == nil {
			t.Errorf("SnapshotRef(%q, %q) = %q", c.team, c.member, ref)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
