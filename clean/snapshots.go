package clean

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
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// Snapshots are refs in the repositories they were taken in; once clean has
// removed a team's state, nothing of teamctl's says which repository that
// was. So each repository clean took a snapshot in is recorded, one file per
// repository (its main checkout's path) in <state root>/.snapshots/, and
// `teamctl snapshots` looks in those and in the repository of the current
// folder.

const reposFolder = ".snapshots" // in the state root; not a team name (a dot)

// recordRepo records that the repository of main holds snapshots.
func recordRepo(main string) error {
	if err := state.EnsureRoot(); err != nil {
		return err
	}
	root, err := state.Root()
	if err != nil {
		return err
	}
	dir := filepath.Join(root, reposFolder)
	if err := safefile.EnsureDir(dir, "snapshots record folder", 0o700); err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(main))
	_, err = atomicfile.WriteNew(filepath.Join(dir, hex.EncodeToString(sum[:8])), []byte(main+"\n"), 0o600)
	return err
}

// snapshotRepos are the main checkouts of the recorded repositories and of
// the current folder's, each once. A recorded repository whose .git folder
// is gone is forgotten.
func snapshotRepos(ctx context.Context) []string {
	var repos []string
	seen := map[string]bool{}
	add := func(main string) {
		// One repository has many names (".", "..", its full path, one
		// through a symlink): its resolved common git folder is its own.
		key := main
		if c, err := worktrees.CommonDir(main); err == nil {
			key = c
		} else if r, err := filepath.EvalSymlinks(main); err == nil {
			key = r
		}
		if !seen[key] {
			seen[key] = true
			repos = append(repos, main)
		}
	}
	if r, err := worktrees.FindRepo(ctx, "."); err == nil {
		add(r.Main)
	}
	root, err := state.Root()
	if err != nil {
		return repos
	}
	dir := filepath.Join(root, reposFolder)
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

	s worktrees.Snapshot
}

// ListSnapshots lists the snapshots (of team, or of every team when "") in
// the recorded repositories and the current folder's, oldest first. A
// repository that cannot be read is a note.
func ListSnapshots(ctx context.Context, team string) ([]SnapshotInfo, []string) {
	var list []SnapshotInfo
	var notes []string
	for _, main := range snapshotRepos(ctx) {
		ss, err := worktrees.Snapshots(ctx, main)
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

// FindSnapshot finds one snapshot by its ref, its short name
// <team>/<member>/<time>, or a prefix of either that only it has.
func FindSnapshot(ctx context.Context, name string) (SnapshotInfo, error) {
	if name == "" {
		return SnapshotInfo{}, errors.New("name a snapshot (teamctl snapshots lists them)")
	}
	list, notes := ListSnapshots(ctx, "")
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

// Restore makes a new worktree of the snapshot name (as FindSnapshot takes
// it) at path, or under the repository's RestoredFolder when path is "", on
// a new branch teamctl-restored/<team>/<member>/<time>. A path that exists
// is refused. The worktree is the person's: no team records it, and clean
// never removes it.
func Restore(ctx context.Context, name, path string) (Restored, error) {
	s, err := FindSnapshot(ctx, name)
	if err != nil {
		return Restored{}, err
	}
	r := Restored{SnapshotInfo: s}
	if path == "" {
		// The name is a ref's: no "..", no part starting with ".", so it stays below.
		path = filepath.Join(s.Repo, RestoredFolder, filepath.FromSlash(s.Name))
		if err := worktrees.Exclude(filepath.Join(s.Repo, ".git"), "/"+RestoredFolder+"/"); err != nil {
			return r, err
		}
	}
	if r.Path, err = filepath.Abs(path); err != nil {
		return r, err
	}
	r.Branch, err = worktrees.Restore(ctx, s.Repo, s.s, r.Path)
	return r, err
}

// snapshotRefs plans (clean --snapshots) the removal of the snapshots of
// o.Team, or of every team, older than o.OlderThan when it is set: one
// transaction per repository, each ref deleted only while it still points
// where it was seen.
func (p *planner) snapshotRefs(ctx context.Context) error {
	if p.o.Team != "" && !state.ValidTeamName(p.o.Team) {
		return fmt.Errorf("invalid team name %q", p.o.Team)
	}
	list, notes := ListSnapshots(ctx, p.o.Team)
	p.r.Notes = append(p.r.Notes, notes...)
	batches := map[string]*batch{}
	unknown := 0
	for _, s := range list {
		age := p.now.Sub(s.Time)
		if p.o.OlderThan > 0 && (s.Time.IsZero() || age < p.o.OlderThan) {
			if s.Time.IsZero() {
				unknown++
			}
			continue
		}
		b := batches[s.Repo]
		if b == nil {
			b = deleteBatch(s.Repo)
			batches[s.Repo] = b
		}
		team := s.Team
		if team == "" {
			team = "-"
		}
		why := "in " + s.Repo + ", of no time teamctl can read"
		if !s.Time.IsZero() {
			why = fmt.Sprintf("in %s, taken %s (%s ago)", s.Repo, s.Time.Format("2006-01-02 15:04 UTC"), roughAge(age))
		}
		snap := s.s
		p.add(&Action{Step: StepSnapshotRef, Team: team, Target: s.Ref, Why: why, Repo: s.Repo, Snapshot: &snap, batch: b})
	}
	if unknown > 0 {
		p.note("%d snapshot ref(s) whose name holds no time left alone (--older-than cannot tell their age)", unknown)
	}
	return nil
}

// deleteBatch deletes a repository's snapshots in one git call.
func deleteBatch(main string) *batch {
	return &batch{run: func(ctx context.Context, ready []*Action) {
		refs := map[string]string{}
		for _, a := range ready {
			refs[a.Target] = a.Snapshot.Commit
		}
		err := worktrees.DeleteSnapshots(ctx, main, refs)
		for _, a := range ready {
			if err != nil {
				a.Result, a.Detail = Failed, err.Error()
			} else {
				a.Result = Done
			}
		}
	}}
}

// roughAge says a duration in days, or hours under two days.
func roughAge(d time.Duration) string {
	if d < 48*time.Hour {
		return fmt.Sprintf("%d hours", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}
