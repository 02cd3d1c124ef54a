// Package gitworld makes the repository bench/radar and bench/diff measure:
// a main checkout of many files and members' worktrees made as teamctl makes
// them (worktrees.Ensure), each with changed files, some committed on its
// branch, some staged, unstaged or untracked, and some the same files as its
// neighbours' (so that pairs merge files, and some conflict).
package gitworld

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/teamctl/teamctl/internal/bench/world"
	"github.com/teamctl/teamctl/worktrees"
)

// Config is the shape of the repository.
type Config struct {
	Files, Members, Changed int // tracked files; members with worktrees; files each member changes
}

// Member is one member's worktree.
type Member struct {
	Name, Path, Branch string
}

// Repo is the repository made.
type Repo struct {
	Dir     string // holds everything; Remove deletes it
	Main    string // the main checkout, on branch main
	Members []Member
	Env     []string // for the git commands the baselines run
}

// Remove deletes the repository and its worktrees.
func (r *Repo) Remove() { os.RemoveAll(r.Dir) }

// Git runs git in dir with r's environment and returns its output.
func (r *Repo) Git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := world.Command(ctx, world.Timeout, dir, r.Env, "git", args...)
	if err != nil {
		return out, fmt.Errorf("git %s (in %s): %w: %s", strings.Join(args, " "), dir, err, out)
	}
	return out, nil
}

const lines = 30 // lines per file

// path is the i-th tracked file.
func path(i int) string {
	return filepath.Join(fmt.Sprintf("pkg%02d", i%40), fmt.Sprintf("f%04d.go", i))
}

func content(i int, edit func(line int) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package pkg\n")
	for l := 1; l < lines; l++ {
		s := fmt.Sprintf("const C%d_%d = %d", i, l, l)
		if edit != nil {
			if e := edit(l); e != "" {
				s = e
			}
		}
		b.WriteString(s + "\n")
	}
	return b.String()
}

// Make makes the repository in a new temporary folder. Member k changes the
// files k*(Changed*3/4) onwards, so neighbours share a quarter of their files:
// in the first shared file both change the same line (a conflict), in the
// others lines of their own (merged). Of each member's files the first half
// is committed on its branch; of the rest, a third is staged, a third left
// unstaged, and a third are new untracked files.
func Make(ctx context.Context, cfg Config) (_ *Repo, err error) {
	if cfg.Files < 1 || cfg.Members < 1 || cfg.Changed < 4 {
		return nil, fmt.Errorf("need files >= 1, members >= 1, changed >= 4")
	}
	dir, err := os.MkdirTemp("", "teamctl-gitworld-")
	if err != nil {
		return nil, err
	}
	r := &Repo{Dir: dir, Main: filepath.Join(dir, "repo")}
	defer func() {
		if err != nil {
			r.Remove()
		}
	}()
	// Git as a person has it, minus their config: the bench's own identity.
	r.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.invalid", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.invalid")
	for i := range cfg.Files {
		if err := write(r.Main, path(i), content(i, nil)); err != nil {
			return nil, err
		}
	}
	// Packed, as a cloned repository is (the members' new objects stay loose).
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-q", "-m", "files"}, {"repack", "-adq"}} {
		if _, err := r.Git(ctx, r.Main, args...); err != nil {
			return nil, err
		}
	}
	step := cfg.Changed * 3 / 4
	for k := range cfg.Members {
		m := Member{Name: fmt.Sprintf("m%02d", k), Branch: fmt.Sprintf("teamctl/bench/m%02d", k)}
		m.Path = filepath.Join(r.Main, ".teamctl", "worktrees", "bench", m.Name)
		if _, err := worktrees.Ensure(ctx, worktrees.Spec{Main: r.Main, Path: m.Path, Branch: m.Branch, Base: "main"}); err != nil {
			return nil, err
		}
		if err := r.change(ctx, m, k, k*step, cfg); err != nil {
			return nil, err
		}
		r.Members = append(r.Members, m)
	}
	for _, dir := range append([]string{r.Main}, memberPaths(r.Members)...) {
		if err := r.age(ctx, dir); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func memberPaths(ms []Member) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Path)
	}
	return out
}

// age dates the files of the checkout at dir an hour back and has git look at
// them once (update-index --refresh writes the index anew), as a checkout is
// after an hour of work: git wrote its index after its files. Made in the
// second git wrote the index, every file would be "racily clean", which git
// reads again on every status until something writes the index, a cost no
// agent's worktree has for long (its own git status writes the index).
func (r *Repo) age(ctx context.Context, dir string) error {
	then := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || (p != dir && d.Name() == ".teamctl")) {
			return filepath.SkipDir // the main checkout holds the worktrees, aged on their own
		}
		if d.Type().IsRegular() {
			return os.Chtimes(p, then, then)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("date the files of %s: %w", dir, err)
	}
	// Exit 1 when files are modified: that is expected.
	if _, err := r.Git(ctx, dir, "update-index", "-q", "--refresh"); err != nil && !strings.Contains(err.Error(), "exit status 1") {
		return err
	}
	return nil
}

// change makes member k's changes to the files from first on.
func (r *Repo) change(ctx context.Context, m Member, k, first int, cfg Config) error {
	n, step := cfg.Changed, cfg.Changed*3/4
	for j := range n {
		i := (first + j) % cfg.Files
		line := 2 + (i+4*k)%(lines-2) // a line of its own, apart from its neighbour's, in a file its neighbour changes too...
		if j == 0 || j == step {
			line = 1 // ...but the first they share, where both change line 1: a conflict
		}
		edit := func(l int) string {
			if l == line {
				return fmt.Sprintf("const C%d_%d = %d // changed by %s", i, l, 1000+k, m.Name)
			}
			return ""
		}
		rest := j - n/2
		switch {
		case rest < 0: // committed below
		case rest%3 == 2 && j != step: // a new file, untracked
			if err := write(m.Path, filepath.Join("new", m.Name, fmt.Sprintf("n%03d.go", j)), content(j, nil)); err != nil {
				return err
			}
			continue
		}
		if err := write(m.Path, path(i), content(i, edit)); err != nil {
			return err
		}
		if rest < 0 || rest%3 == 0 {
			if _, err := r.Git(ctx, m.Path, "add", path(i)); err != nil {
				return err
			}
		}
		if j == n/2-1 {
			if _, err := r.Git(ctx, m.Path, "commit", "-q", "-m", "work of "+m.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

func write(top, rel, s string) error {
	p := filepath.Join(top, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(s), 0o644)
}

// CommitWork commits the whole work of m's worktree (staged, unstaged,
// untracked) as a person's script would before comparing branches: through
// a temporary index, so the worktree stays as it is, onto a branch of its
// own (work/<name>), which it returns.
func (r *Repo) CommitWork(ctx context.Context, m Member) (string, error) {
	index := filepath.Join(r.Dir, "index-"+m.Name)
	gitdir, err := r.Git(ctx, m.Path, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return "", err
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(gitdir), "index"))
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(index, src, 0o600); err != nil {
		return "", err
	}
	defer os.Remove(index)
	env := append(append([]string(nil), r.Env...), "GIT_INDEX_FILE="+index)
	run := func(args ...string) (string, error) {
		out, err := world.Command(ctx, world.Timeout, m.Path, env, "git", args...)
		if err != nil {
			return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(out), nil
	}
	if _, err := run("add", "--all"); err != nil {
		return "", err
	}
	tree, err := run("write-tree")
	if err != nil {
		return "", err
	}
	c, err := run("commit-tree", tree, "-p", "HEAD", "-m", "uncommitted work of "+m.Name)
	if err != nil {
		return "", err
	}
	branch := "work/" + m.Name
	if _, err := run("branch", "-f", branch, c); err != nil {
		return "", err
	}
	return branch, nil
}
