package worktrees

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testRecord is a record of snapshots' repositories in a folder of the
// test's own, run from a folder outside any repository.
func testRecord(t *testing.T) SnapshotRecord {
	root := filepath.Join(t.TempDir(), "state")
	t.Chdir(t.TempDir())
	return SnapshotRecord{Dir: func(create bool) (string, error) {
		if create {
			if err := os.MkdirAll(root, 0o700); err != nil {
				return "", err
			}
		}
		return filepath.Join(root, ".snapshots"), nil
	}}
}

// recordedSnapshot makes a snapshot ref by hand, of main's head, and
// records its repository as taking one does.
func recordedSnapshot(t *testing.T, rec SnapshotRecord, main, name string) {
	t.Helper()
	run(t, main, "update-ref", SnapshotRefs+name, "main")
	if err := rec.Add(main); err != nil {
		t.Fatal(err)
	}
}

// TestFindSnapshot: a snapshot is found by its ref, its name or a prefix
// only it has, in any recorded repository; a prefix two have, or a name in
// two repositories, is refused naming them. A repository that is gone is
// forgotten.
func TestFindSnapshot(t *testing.T) {
	c := ctx(t)
	rec := testRecord(t)
	one, two := repo(t), repo(t)
	recordedSnapshot(t, rec, one, "auth-fix/alice/20261201T154700Z")
	recordedSnapshot(t, rec, one, "auth-fix/bob/20261201T154700Z")
	recordedSnapshot(t, rec, two, "other/bob/20261130T000000Z")
	recordedSnapshot(t, rec, two, "auth-fix/carol/20261201T154700Z")

	for name, want := range map[string]string{
		"refs/teamctl/snapshots/auth-fix/alice/20261201T154700Z": "auth-fix/alice/20261201T154700Z",
		"auth-fix/bob/20261201T154700Z":                          "auth-fix/bob/20261201T154700Z",
		"auth-fix/al":                                            "auth-fix/alice/20261201T154700Z",
		"other":                                                  "other/bob/20261130T000000Z",
	} {
		s, err := rec.Find(c, name)
		if err != nil || s.Name != want {
			t.Errorf("Find(%q) = %q, %v; want %q", name, s.Name, err, want)
		}
	}
	if s, _ := rec.Find(c, "other"); s.Repo != two || s.Team != "other" || s.Member != "bob" || s.Snapshot().Ref != s.Ref {
		t.Errorf("found in %s: %+v", two, s)
	}
	if _, err := rec.Find(c, "auth-fix"); err == nil || !strings.Contains(err.Error(), "names 3 snapshots") || !strings.Contains(err.Error(), two) {
		t.Errorf("an ambiguous prefix: %v", err)
	}
	if _, err := rec.Find(c, "nosuch"); err == nil || !strings.Contains(err.Error(), `no snapshot "nosuch"`) {
		t.Errorf("no such snapshot: %v", err)
	}
	recordedSnapshot(t, rec, two, "auth-fix/alice/20261201T154700Z")
	if _, err := rec.Find(c, "auth-fix/alice/20261201T154700Z"); err == nil || !strings.Contains(err.Error(), one) || !strings.Contains(err.Error(), two) {
		t.Errorf("one name in two repositories: %v", err)
	}
	if l, _ := rec.List(c, "other"); len(l) != 1 {
		t.Errorf("List(other) = %+v", l)
	}

	os.RemoveAll(two)
	if l, _ := rec.List(c, ""); len(l) != 2 {
		t.Errorf("with a repository gone: %+v", l)
	}
	dir, _ := rec.Dir(false)
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("the gone repository is still recorded: %v", ents)
	}
}

// TestSnapshotListsTheCurrentFoldersRepository: a repository nothing
// recorded is listed from inside it, and once when it is recorded too.
func TestSnapshotListsTheCurrentFoldersRepository(t *testing.T) {
	c := ctx(t)
	rec := testRecord(t)
	main := repo(t)
	run(t, main, "update-ref", SnapshotRefs+"t/m/20261201T154700Z", "main")
	if l, _ := rec.List(c, ""); len(l) != 0 {
		t.Fatalf("listed from outside, unrecorded: %+v", l)
	}
	t.Chdir(main)
	if err := rec.Add(main); err != nil { // recorded too: listed once all the same
		t.Fatal(err)
	}
	if l, _ := rec.List(c, ""); len(l) != 1 || l[0].Name != "t/m/20261201T154700Z" {
		t.Errorf("from inside: %+v, want it once", l)
	}
}

// TestTakeRecords: a snapshot taken is listed from anywhere.
func TestTakeRecords(t *testing.T) {
	c := ctx(t)
	rec := testRecord(t)
	main := repo(t)
	s, err := rec.Take(c, "t", "m", main, "", "main", time.Date(2026, 12, 1, 15, 47, 0, 0, time.UTC))
	if err != nil || s.Name() != "t/m/20261201T154700Z" {
		t.Fatalf("Take = %+v, %v", s, err)
	}
	if l, _ := rec.List(c, "t"); len(l) != 1 || l[0].Commit != s.Commit || l[0].Repo != main {
		t.Errorf("listed: %+v", l)
	}
}

// TestRestoreIntoTheRepository: without a path, a snapshot is restored under
// the repository's .teamctl/restored, which git status does not show.
func TestRestoreIntoTheRepository(t *testing.T) {
	c := ctx(t)
	rec := testRecord(t)
	main := repo(t)
	recordedSnapshot(t, rec, main, "t/m/20261201T154700Z")
	r, err := rec.Restore(c, "t/m", "")
	want := filepath.Join(main, ".teamctl", "restored", "t", "m", "20261201T154700Z")
	if err != nil || r.Path != want || r.Branch != "teamctl-restored/t/m/20261201T154700Z" {
		t.Fatalf("Restore = %+v, %v; want at %s", r, err, want)
	}
	if got := strings.TrimSpace(run(t, want, "rev-parse", "--abbrev-ref", "HEAD")); got != r.Branch {
		t.Error("the restored worktree is not on its branch")
	}
	if st := run(t, main, "status", "--porcelain"); st != "" {
		t.Errorf("status shows the restored folder: %q", st)
	}
	if _, err := rec.Restore(c, "t/m", ""); err == nil {
		t.Error("restored twice onto one folder")
	}
}
