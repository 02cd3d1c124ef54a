package worktrees

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/atomicfile"
	"github.com/teamctl/teamctl/internal/safefile"
)

// SnapshotRecord is the record of the repositories snapshots were taken
// in. Snapshots are refs in those repositories; once clean has removed a
// team's state, nothing of teamctl's says which repository that was. So
// each repository a snapshot is taken in is recorded, one file per
// repository (its main checkout's path) in a folder of teamctl's state
// root, and `teamctl snapshots` looks in those and in the repository of
// the current folder.
type SnapshotRecord struct {
	// Dir is the record's folder (state.SnapshotRecordDir); asked to
	// create, it first makes the folder the record's folder is in.
	Dir func(create bool) (string, error)
}

// Add records that the repository of main holds snapshots.
func (rec SnapshotRecord) Add(main string) error {
	dir, err := rec.Dir(true)
	if err != nil {
		return err
	}
	if err := safefile.EnsureDir(dir, "snapshots record folder", 0o700); err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(main))
	_, err = atomicfile.WriteNew(filepath.Join(dir, hex.EncodeToString(sum[:8])), []byte(main+"\n"), 0o600)
	return err
}

// Take takes the snapshot of member's worktree at path (on branch; "" with
// the folder gone: the branch's head) in the repository of main, named for
// the time at, and records the repository so that `teamctl snapshots`
// lists it from anywhere.
func (rec SnapshotRecord) Take(ctx context.Context, team, member, main, path, branch string, at time.Time) (Snapshot, error) {
	ref, err := SnapshotRef(team, member, at)
	if err != nil {
		return Snapshot{}, err
	}
	s, err := TakeSnapshot(ctx, main, path, branch, ref)
	if err != nil {
		return s, err
	}
	if err := rec.Add(main); err != nil {
		return s, fmt.Errorf("snapshot %s taken, but `teamctl snapshots` lists it only from inside %s: %w", s.Name(), main, err)
	}
	return s, nil
}

// Repos are the main checkouts of the recorded repositories and of the
// current folder's, each once. A recorded repository whose .git folder is
// gone is forgotten.
func (rec SnapshotRecord) Repos(ctx context.Context) []string {
	var repos []string
	seen := map[string]bool{}
	add := func(main string) {
		// One repository has many names (".", "..", its full path, one
		// through a symlink): its resolved common git folder is its own.
		key := main
		if c, err := CommonDir(main); err == nil {
			key = c
		} else if r, err := filepath.EvalSymlinks(main); err == nil {
			key = r
		}
		if !seen[key] {
			seen[key] = true
			repos = append(repos, main)
		}
	}
	if r, err := FindRepo(ctx, "."); err == nil {
		add(r.Main)
	}
	dir, err := rec.Dir(false)
	if err != nil {
		return repos
	}
	if safefile.CheckDir(dir, "snapshots record folder") != nil {
		return repos
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		path := filepath.Join(dir, e.Name())
		main, err := readRecord(path)
		if err != nil || !filepath.IsAbs(main) {
			continue
		}
		if _, err := os.Lstat(filepath.Join(main, ".git")); errors.Is(err, fs.ErrNotExist) {
			os.Remove(path) // the repository is gone, and its snapshots with it
			continue
		}
		add(main)
	}
	return repos
}

func readRecord(path string) (string, error) {
	f, err := safefile.Open(path, os.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	return strings.TrimSuffix(string(b), "\n"), err
}

// SnapshotInfo is one snapshot as `teamctl snapshots` lists it.
type SnapshotInfo struct {
	Name    string    `json:"name"` // <team>/<member>/<time>, what `teamctl restore` takes
	Team    string    `json:"team"`
	Member  string    `json:"member"`
	Time    time.Time `json:"time"` // zero when its name holds none
	Ref     string    `json:"ref"`
	Commit  string    `json:"commit"`
	Summary string    `json:"summary"` // its commit's subject
	Repo    string    `json:"repo"`    // the main checkout of the repository it is in

	s Snapshot
}

// Snapshot is the snapshot listed.
func (i SnapshotInfo) Snapshot() Snapshot { return i.s }

// List lists the snapshots (of team, or of every team when "") in the
// recorded repositories and the current folder's, oldest first. A
// repository that cannot be read is a note.
func (rec SnapshotRecord) List(ctx context.Context, team string) ([]SnapshotInfo, []string) {
	var list []SnapshotInfo
	var notes []string
	for _, main := range rec.Repos(ctx) {
		ss, err := Snapshots(ctx, main)
		if err != nil {
			notes = append(notes, err.Error())
			continue
		}
		for _, s := range ss {
			if team != "" && s.Team != team {
				continue
			}
			list = append(list, SnapshotInfo{Name: s.Name(), Team: s.Team, Member: s.Member, Time: s.Time, Ref: s.Ref, Commit: s.Commit, Summary: s.Subject, Repo: main, s: s})
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].Time.Before(list[j].Time) })
	return list, notes
}

// Find finds one snapshot by its ref, its short name
// <team>/<member>/<time>, or a prefix of either that only it has.
func (rec SnapshotRecord) Find(ctx context.Context, name string) (SnapshotInfo, error) {
	if name == "" {
		return SnapshotInfo{}, errors.New("name a snapshot (teamctl snapshots lists them)")
	}
	list, notes := rec.List(ctx, "")
	var exact, prefix []SnapshotInfo
	for _, s := range list {
		switch {
		case s.Ref == name || s.Name == name:
			exact = append(exact, s)
		case strings.HasPrefix(s.Name, name) || strings.HasPrefix(s.Ref, name):
			prefix = append(prefix, s)
		}
	}
	found := exact
	if len(found) == 0 {
		found = prefix
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		msg := fmt.Sprintf("no snapshot %q (teamctl snapshots lists them; it looks in the repositories clean took snapshots in and in the current folder's)", name)
		if len(notes) > 0 {
			msg += "; " + strings.Join(notes, "; ")
		}
		return SnapshotInfo{}, errors.New(msg)
	}
	var names []string
	for i, s := range found {
		if i == 10 {
			names = append(names, fmt.Sprintf("and %d more", len(found)-10))
			break
		}
		names = append(names, s.Name+" in "+s.Repo)
	}
	return SnapshotInfo{}, fmt.Errorf("%q names %d snapshots: %s; name one", name, len(found), strings.Join(names, ", "))
}

// Restored is a snapshot brought back.
type Restored struct {
	SnapshotInfo
	Path   string `json:"path"`
	Branch string `json:"branch"`
}

// RestoredFolder is where, in a repository, snapshots are restored unless a
// folder is named: <main>/.teamctl/restored/<team>/<member>/<time>.
const RestoredFolder = ".teamctl/restored"

// Restore makes a new worktree of the snapshot name (as Find takes it) at
// path, or under the repository's RestoredFolder when path is "", on a new
// branch teamctl-restored/<team>/<member>/<time>. A path that exists is
// refused. The worktree is the person's: no team records it, and clean
// never removes it.
func (rec SnapshotRecord) Restore(ctx context.Context, name, path string) (Restored, error) {
	s, err := rec.Find(ctx, name)
	if err != nil {
		return Restored{}, err
	}
	res := Restored{SnapshotInfo: s}
	if path == "" {
		// The name is a ref's: no "..", no part starting with ".", so it stays below.
		path = filepath.Join(s.Repo, RestoredFolder, filepath.FromSlash(s.Name))
		if err := Exclude(filepath.Join(s.Repo, ".git"), "/"+RestoredFolder+"/"); err != nil {
			return res, err
		}
	}
	if res.Path, err = filepath.Abs(path); err != nil {
		return res, err
	}
	res.Branch, err = Restore(ctx, s.Repo, s.s, res.Path)
	return res, err
}
