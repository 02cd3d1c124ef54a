package worktrees

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/safefile"
)

// SnapshotRefs is where snapshots live in a repository: refs, not branches,
// so no `git branch` lists them, and git gc keeps what they point at.
const SnapshotRefs = "refs/teamctl/snapshots/"

// SnapshotTime is the UTC time in a snapshot's name.
const SnapshotTime = "20060102T150405Z"

// MaxSnapshotFile is the largest file a snapshot takes; a larger one is left
// out and named (a snapshot is for work, not for build outputs or disk images).
const MaxSnapshotFile = 100 << 20 // 100 MiB

// Snapshot is a commit holding a worktree's work, under SnapshotRefs: its
// branch's commits, and (in a commit on top of them) its staged, unstaged
// and untracked files, as the folder had them.
type Snapshot struct {
	Ref     string    `json:"ref"`
	Commit  string    `json:"commit"`
	Team    string    `json:"team"` // from the ref's name, <team>/<member>/<time>
	Member  string    `json:"member"`
	Time    time.Time `json:"time"` // zero when the name holds none
	Subject string    `json:"subject,omitempty"`

	// Of one just taken:
	Head    string    `json:"head,omitempty"`     // the commit it stands on (the worktree's HEAD or the branch's head)
	Files   int       `json:"files,omitempty"`    // files whose uncommitted state it holds
	LeftOut []LeftOut `json:"left_out,omitempty"` // what it does not hold
}

// LeftOut is a file (or folder) a snapshot does not hold, and why.
type LeftOut struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// Name is the snapshot's short name, <team>/<member>/<time>.
func (s Snapshot) Name() string { return strings.TrimPrefix(s.Ref, SnapshotRefs) }

// SnapshotRef names the snapshot of a member's worktree taken at a moment:
// refs/teamctl/snapshots/<team>/<member>/<UTC time>. Each part is checked.
func SnapshotRef(team, member string, at time.Time) (string, error) {
	if err := checkRefPart("team", team); err != nil {
		return "", err
	}
	if err := checkRefPart("member", member); err != nil {
		return "", err
	}
	return SnapshotRefs + team + "/" + member + "/" + at.UTC().Format(SnapshotTime), nil
}

// parseName fills Team, Member and Time from the ref's name when it has
// teamctl's shape.
func (s *Snapshot) parseName() {
	parts := strings.Split(s.Name(), "/")
	if len(parts) != 3 || !strings.HasPrefix(s.Ref, SnapshotRefs) {
		return
	}
	s.Team, s.Member = parts[0], parts[1]
	if t, err := time.Parse(SnapshotTime, parts[2]); err == nil {
		s.Time = t
	}
}

// RestoreBranch is the branch a snapshot is restored on:
// teamctl-restored/<team>/<member>/<time>, beside anything that exists.
func (s Snapshot) RestoreBranch() string { return "teamctl-restored/" + s.Name() }

// TakeSnapshot records under ref (a new name under SnapshotRefs, from
// SnapshotRef) the work of the worktree at path in the repository whose main
// checkout is main: a commit on top of the worktree's HEAD whose tree is the
// folder's files — staged, unstaged, untracked but not ignored — or HEAD
// itself when nothing is uncommitted. When branch is not "", the worktree
// must be on it. Without a path (the folder is gone) the ref points at the
// branch's head.
//
// The member's index and files are not touched: the tree is written through
// a temporary index (a copy of the worktree's), never with git stash, which
// changes the folder. A file over MaxSnapshotFile, and a folder that is a
// repository of its own (git would record only its commit), are left out and
// named in LeftOut. The ref is only ever created, never moved.
func TakeSnapshot(ctx context.Context, main, path, branch, ref string) (Snapshot, error) {
	s := Snapshot{Ref: ref}
	s.parseName()
	if !strings.HasPrefix(ref, SnapshotRefs) || s.Team == "" {
		return s, fmt.Errorf("snapshot ref %q: not %s<team>/<member>/<time>", ref, SnapshotRefs)
	}
	if branch != "" {
		if err := CheckBranch(branch); err != nil {
			return s, err
		}
	}
	if path == "" {
		if branch == "" {
			return s, errors.New("a snapshot needs a worktree or a branch")
		}
		head, err := revParse(ctx, main, "refs/heads/"+branch+"^{commit}")
		if err != nil {
			return s, fmt.Errorf("snapshot of branch %s: %w", branch, err)
		}
		s.Head, s.Commit = head, head
		return s, createRef(ctx, main, ref, head)
	}
	head, err := worktreeHead(ctx, path, branch)
	if err != nil {
		return s, err
	}
	s.Head, s.Commit = head, head
	changes, err := Changes(ctx, path)
	if err != nil {
		return s, err
	}
	s.LeftOut = LeftOutOf(path, append(changes.Changed, changes.Untracked...))
	s.Files = len(changes.Changed) + len(changes.Untracked) - len(s.LeftOut)
	if s.Files > 0 {
		if s.Commit, err = snapshotCommit(ctx, path, branch, s); err != nil {
			return s, err
		}
	}
	return s, createRef(ctx, main, ref, s.Commit)
}

// worktreeHead is the commit checked out at path, which must be on branch
// when branch is not "".
func worktreeHead(ctx context.Context, path, branch string) (string, error) {
	if branch != "" {
		on, err := git(ctx, path, "symbolic-ref", "--quiet", "HEAD")
		if on = strings.TrimSpace(on); err != nil || on != "refs/heads/"+branch {
			if on == "" {
				on = "a detached HEAD"
			}
			return "", fmt.Errorf("snapshot of %s: it is on %s, not on branch %s", path, on, branch)
		}
	}
	head, err := revParse(ctx, path, "HEAD^{commit}")
	if err != nil {
		return "", fmt.Errorf("snapshot of %s: %w", path, err)
	}
	return head, nil
}

// LeftOutOf picks, of the files status listed (relative to the worktree's
// top, as in a Loss), those a snapshot does not take: files over
// MaxSnapshotFile, and untracked folders (status lists a folder only when it
// is a repository of its own).
func LeftOutOf(top string, files []string) []LeftOut {
	var out []LeftOut
	for _, f := range files {
		if strings.HasSuffix(f, "/") {
			out = append(out, LeftOut{f, "a git repository of its own"})
			continue
		}
		fi, err := os.Lstat(filepath.Join(top, f))
		if err == nil && fi.Mode().IsRegular() && fi.Size() > MaxSnapshotFile {
			out = append(out, LeftOut{f, fmt.Sprintf("%d MiB, over %d MiB", fi.Size()>>20, MaxSnapshotFile>>20)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// snapshotCommit writes the folder's tree through a temporary index and
// commits it on top of s.Head.
func snapshotCommit(ctx context.Context, path, branch string, s Snapshot) (string, error) {
	tree, err := stateTree(ctx, path, s.Head, s.LeftOut)
	if err != nil {
		return "", fmt.Errorf("snapshot of %s: %w", path, err)
	}
	on := branch
	if on == "" {
		on = "a detached HEAD"
	}
	msg := fmt.Sprintf("teamctl snapshot of %s: %d uncommitted file(s) on %s\n\nThe work of the worktree %q, not committed when teamctl\ntook this snapshot (staged, unstaged and untracked files, as the folder had them).\n", s.Name(), s.Files, on, path)
	for _, l := range s.LeftOut {
		msg += fmt.Sprintf("\nLeft out: %q (%s)", l.Path, l.Why)
	}
	args := []string{"commit-tree", "--no-gpg-sign", tree, "-p", s.Head, "-m", msg}
	out, err := git(ctx, path, args...)
	var ge *GitError
	if errors.As(err, &ge) && noIdentity(ge.Stderr) {
		// No user.name/user.email anywhere: teamctl signs its own snapshot.
		out, err = gitEnv(ctx, path, fallbackIdentity, "", args...)
	}
	if err != nil {
		return "", fmt.Errorf("snapshot of %s: %w", path, err)
	}
	return strings.TrimSpace(out), nil
}

// stateTree writes the tree of the folder's files — staged, unstaged,
// untracked but not ignored, as the folder has them — through a temporary
// index (a copy of the folder's own), so the folder's index and files are
// never touched. head is the commit the folder has checked out; what leftOut
// names is not taken.
func stateTree(ctx context.Context, path, head string, leftOut []LeftOut) (string, error) {
	add := []string{"add", "--all", "--", "."}
	for _, l := range leftOut {
		add = append(add, ":(top,exclude,literal)"+strings.TrimSuffix(l.Path, "/"))
	}
	return indexTree(ctx, path, head, add, "")
}

// stateTreeOf is stateTree taking only the files named (relative to the
// folder's top, as status lists them), read from the folder as they are:
// git looks at no other file.
func stateTreeOf(ctx context.Context, path, head string, files []string) (string, error) {
	if len(files) == 0 {
		return stateTree(ctx, path, head, nil) // `add --pathspec-from-file` of nothing is `add .`
	}
	return indexTree(ctx, path, head, []string{"add", "--all", "--pathspec-from-file=-", "--pathspec-file-nul"}, strings.Join(files, "\x00"))
}

// indexTree runs add (with stdin) on a temporary index, a copy of the
// folder's own, and writes its tree.
func indexTree(ctx context.Context, path, head string, add []string, stdin string) (string, error) {
	tmp, err := os.MkdirTemp("", "teamctl-snapshot-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	// Pathspecs are read with their magic (":(exclude)") whatever the caller's
	// environment says.
	env := []string{"GIT_INDEX_FILE=" + index, "GIT_LITERAL_PATHSPECS=0", "GIT_GLOB_PATHSPECS=0", "GIT_NOGLOB_PATHSPECS=0", "GIT_ICASE_PATHSPECS=0"}
	copied, err := copyIndex(path, index)
	if err != nil {
		return "", err
	}
	if !copied {
		// No index yet: start from HEAD's, so tracked files that are ignored stay.
		if _, err := gitEnv(ctx, path, env, "", "read-tree", head); err != nil {
			return "", err
		}
	}
	if stdin != "" {
		// Names from a file are names, whatever their bytes.
		env = append(env, "GIT_LITERAL_PATHSPECS=1")
	}
	if _, err := gitEnv(ctx, path, env, stdin, add...); err != nil {
		return "", err
	}
	tree, err := gitEnv(ctx, path, env, "", "write-tree")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(tree), nil
}

var fallbackIdentity = []string{
	"GIT_AUTHOR_NAME=teamctl", "GIT_AUTHOR_EMAIL=teamctl@localhost",
	"GIT_COMMITTER_NAME=teamctl", "GIT_COMMITTER_EMAIL=teamctl@localhost",
}

func noIdentity(stderr string) bool {
	return strings.Contains(stderr, "Please tell me who you are") || strings.Contains(stderr, "unable to auto-detect") || strings.Contains(stderr, "empty ident")
}

// copyIndex copies the index of the checkout at path (a worktree, or a main
// checkout) to dst, reading it only, never through a symlink. It reports
// false when the checkout has none.
func copyIndex(path, dst string) (bool, error) {
	gitdir, err := checkoutGitDir(path)
	if err != nil {
		return false, err
	}
	src, err := safefile.Open(filepath.Join(gitdir, "index"), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("its index: %w", err)
	}
	defer src.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false, err
	}
	if _, err := io.Copy(out, src); err != nil {
		out.Close()
		return false, fmt.Errorf("copy its index: %w", err)
	}
	if err := out.Close(); err != nil {
		return false, err
	}
	// The copy keeps the index's time: git reads a file whose time is not
	// before its index's again ("racily clean": changed in the tick the
	// index was written, its stat the same), and a copy made later would
	// have it take such a change for the staged file.
	fi, err := src.Stat()
	if err != nil {
		return false, fmt.Errorf("its index: %w", err)
	}
	if err := os.Chtimes(dst, fi.ModTime(), fi.ModTime()); err != nil {
		return false, fmt.Errorf("copy its index: %w", err)
	}
	return true, nil
}

func revParse(ctx context.Context, dir, rev string) (string, error) {
	out, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", rev)
	if err != nil {
		return "", fmt.Errorf("%s is no commit: %w", strings.TrimSuffix(rev, "^{commit}"), err)
	}
	return strings.TrimSpace(out), nil
}

// createRef makes ref point at commit; a ref of that name already there is an
// error, never overwritten.
func createRef(ctx context.Context, main, ref, commit string) error {
	if _, err := git(ctx, main, "update-ref", "-m", "teamctl snapshot", ref, commit, ""); err != nil {
		return fmt.Errorf("record snapshot %s: %w", ref, err)
	}
	return nil
}

// Snapshots lists the snapshots of the repository of main, oldest first
// (names sort by time within a member).
func Snapshots(ctx context.Context, main string) ([]Snapshot, error) {
	out, err := git(ctx, main, "for-each-ref", "--format=%(refname)%00%(objectname)%00%(objecttype)%00%(subject)%00", SnapshotRefs)
	if err != nil {
		return nil, fmt.Errorf("snapshots in %s: %w", main, err)
	}
	var list []Snapshot
	for _, rec := range strings.Split(out, "\x00\n") {
		f := strings.Split(rec, "\x00")
		if len(f) != 4 || f[2] != "commit" {
			continue // a ref to something else is no snapshot of teamctl's
		}
		s := Snapshot{Ref: f[0], Commit: f[1], Subject: f[3]}
		s.parseName()
		list = append(list, s)
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].Time.Before(list[j].Time) })
	return list, nil
}

// DeleteSnapshots deletes snapshot refs (ref → the commit it was seen at), in
// one transaction: each only while it still points where it was seen.
func DeleteSnapshots(ctx context.Context, main string, refs map[string]string) error {
	var in strings.Builder
	for _, ref := range sortedKeys(refs) {
		if !strings.HasPrefix(ref, SnapshotRefs) || strings.ContainsAny(ref, " \n\x00") {
			return fmt.Errorf("%q is no snapshot ref", ref)
		}
		fmt.Fprintf(&in, "delete %s %s\n", ref, refs[ref])
	}
	if in.Len() == 0 {
		return nil
	}
	if _, err := gitEnv(ctx, main, nil, in.String(), "update-ref", "--stdin"); err != nil {
		return fmt.Errorf("delete snapshots in %s: %w", main, err)
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Restore makes a new worktree at path (which must not exist) of the
// snapshot s of the repository of main, on a new branch (s.RestoreBranch()),
// so that nothing existing moves.
func Restore(ctx context.Context, main string, s Snapshot, path string) (branch string, err error) {
	branch = s.RestoreBranch()
	if err := CheckBranch(branch); err != nil {
		return "", fmt.Errorf("restore %s: %w", s.Name(), err)
	}
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("restore %s: %s is not an absolute path", s.Name(), path)
	}
	if _, err := os.Lstat(path); err == nil {
		return "", fmt.Errorf("restore %s: %s exists; name a folder that does not", s.Name(), path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("restore %s: %w", s.Name(), err)
	}
	if BranchExists(ctx, main, branch) {
		return "", fmt.Errorf("restore %s: branch %s exists (restored before?): `git worktree add PATH %s` checks it out again, or `git branch -D %s` first", s.Name(), branch, branch, branch)
	}
	if _, err := git(ctx, main, "worktree", "add", "--quiet", "-b", branch, path, s.Commit); err != nil {
		return "", fmt.Errorf("restore %s: %w", s.Name(), err)
	}
	return branch, nil
}
