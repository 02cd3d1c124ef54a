package clean

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// owned is one worktree clean may remove: one teamctl made (Recorded), or one
// Claude Code made for a teammate of the team.
type owned struct {
	state.Worktree
	Recorded bool
}

// worktrees plans the team's worktrees, a prune of each repository, and the
// branches teamctl made for them.
func (p *planner) worktrees(ctx context.Context, team string, st *state.Team, before []*Action) []*Action {
	var list []owned
	seen := map[string]bool{}
	for _, w := range st.Worktrees {
		list = append(list, owned{w, true})
		seen[filepath.Clean(w.Path)] = true
	}
	for _, w := range claudeWorktrees(st.ClaudeConfig, st.ClaudeTeam, team) {
		if !seen[filepath.Clean(w)] {
			list = append(list, owned{Worktree: state.Worktree{Path: w}})
			seen[filepath.Clean(w)] = true
		}
	}
	var acts []*Action
	byPath := map[string]*Action{}
	var mains []string
	for _, w := range list {
		a := p.worktree(ctx, team, w, before)
		acts = append(acts, a)
		byPath[w.Path] = a
		if m := mainOf(w); m != "" && !slices.Contains(mains, m) {
			mains = append(mains, m)
		}
	}
	for _, main := range mains {
		acts = append(acts, p.add(&Action{Step: StepWorktree, Team: team, Target: main, Why: "git worktree prune: git forgets removed worktrees", needs: before,
			do: func(ctx context.Context) error { return worktrees.Prune(ctx, main) }}))
	}
	acts = append(acts, p.branches(ctx, team, list, byPath)...)
	return acts
}

// mainOf is the main checkout of a worktree: recorded, or found through its .git file.
func mainOf(w owned) string {
	if w.Main != "" {
		return w.Main
	}
	m, _ := worktrees.MainOf(w.Path)
	return m
}

// claudeWorktrees are the worktreePath of the members of the Claude Code teams
// that belong to a teamctl team.
func claudeWorktrees(configDir string, teams ...string) []string {
	if configDir == "" {
		configDir, _ = claudecode.ConfigDir()
	}
	var out []string
	for _, t := range teams {
		if t == "" {
			continue
		}
		path, err := claudecode.TeamConfigPath(configDir, t)
		if err != nil {
			continue
		}
		cfg, err := claudecode.ReadTeamConfig(path)
		if err != nil {
			continue
		}
		for _, m := range cfg.Members {
			if m.WorktreePath != "" && filepath.IsAbs(m.WorktreePath) {
				out = append(out, filepath.Clean(m.WorktreePath))
			}
		}
	}
	return out
}

// worktree plans one worktree: git worktree remove, run in the main checkout,
// which itself refuses a worktree with uncommitted changes or untracked files;
// the refusal then lists them (a dry run looks first). A worktree's commits
// stay on its branch, which is checked on its own; a detached HEAD's commits
// would not, so those are checked before. A folder git does not know as a
// worktree is removed directly.
func (p *planner) worktree(ctx context.Context, team string, w owned, before []*Action) *Action {
	a := &Action{Step: StepWorktree, Team: team, Target: w.Path, needs: before}
	a.Why = "made by teamctl for " + w.Member
	if !w.Recorded {
		a.Why = "made by Claude Code for a teammate of the team"
	}
	fail := func(err error) *Action {
		a.Result, a.Detail = Failed, err.Error()
		return p.add(a)
	}
	fi, err := os.Lstat(w.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		a.Result, a.Detail = Done, "already gone"
		return p.add(a)
	case err != nil:
		return fail(err)
	case fi.Mode()&fs.ModeSymlink != 0:
		// Never followed: the link alone goes.
		a.Detail = "a symlink, removed as a link"
		a.do = func(ctx context.Context) error { return removeOwned(w.Path, filepath.Dir(w.Path)) }
		return p.add(a)
	}
	main, err := worktrees.MainOf(w.Path)
	if errors.Is(err, worktrees.ErrNotWorktree) {
		return p.add(p.notAWorktree(a, w))
	}
	if err != nil {
		return fail(err)
	}
	detached, err := worktrees.Detached(w.Path)
	if err != nil {
		return fail(err)
	}
	if detached || p.o.DryRun {
		var loss worktrees.Loss
		if detached {
			loss, err = worktrees.Inspect(ctx, w.Path, "")
		} else {
			loss, err = worktrees.Changes(ctx, w.Path)
		}
		if err != nil {
			return fail(err)
		}
		if !loss.Empty() {
			a.Loss = &loss
			if !p.o.Force {
				a.Result, a.Detail = Refused, (&refusal{loss, "--force removes it anyway"}).Error()
				return p.add(a)
			}
			a.Detail = "--force: loses " + loss.String()
		}
	}
	force := p.o.Force
	a.do = func(ctx context.Context) error {
		err := worktrees.Remove(ctx, main, w.Path, force)
		switch {
		case errors.Is(err, worktrees.ErrDirty):
			loss, lerr := worktrees.Changes(ctx, w.Path)
			if lerr != nil {
				return fmt.Errorf("%w; and listing what: %w", err, lerr)
			}
			return &refusal{loss, "--force removes it anyway"}
		case errors.Is(err, worktrees.ErrNotWorktree):
			if files := filesIn(w.Path); len(files) > 0 && !force {
				return &refusal{worktrees.Loss{Untracked: files}, "not a git worktree any more; --force removes it anyway"}
			}
			return removeOwned(w.Path, filepath.Dir(w.Path))
		}
		return err
	}
	return p.add(a)
}

// notAWorktree plans a folder that git does not know as a worktree (any more):
// removed directly, but only when empty or with Force, since git cannot tell
// what in it is a person's work.
func (p *planner) notAWorktree(a *Action, w owned) *Action {
	if files := filesIn(w.Path); len(files) > 0 {
		a.Loss = &worktrees.Loss{Untracked: files}
		if !p.o.Force {
			a.Result, a.Detail = Refused, (&refusal{*a.Loss, "not a git worktree; --force removes it anyway"}).Error()
			return a
		}
	}
	a.Detail = "not a git worktree: the folder is removed"
	a.do = func(ctx context.Context) error { return removeOwned(w.Path, filepath.Dir(w.Path)) }
	return a
}

// filesIn lists the files under dir (symlinks are files here: never followed).
func filesIn(dir string) []string {
	var files []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, rel)
		}
		return nil
	})
	return files
}

// branches plans the branches teamctl made for the team's worktrees: deleted,
// after their worktree, only when every commit is in the branch's base (or
// with Force). git is asked once per repository and base, and deletes each
// repository's branches in one call.
func (p *planner) branches(ctx context.Context, team string, list []owned, wtOf map[string]*Action) []*Action {
	byMain := map[string][]owned{}
	var mains []string
	for _, w := range list {
		if !w.Recorded || !w.CreatedBranch || w.Branch == "" || w.Main == "" {
			continue
		}
		if _, ok := byMain[w.Main]; !ok {
			mains = append(mains, w.Main)
		}
		byMain[w.Main] = append(byMain[w.Main], w)
	}
	var acts []*Action
	for _, main := range mains {
		ws := byMain[main]
		existing, err := worktrees.Branches(ctx, main)
		if err != nil {
			p.note("branches of %s: %v; left alone", main, err)
			continue
		}
		unmerged := map[string]bool{}
		for _, base := range dedupeBases(ws) {
			var names []string
			for _, w := range ws {
				if w.Base == base {
					names = append(names, w.Branch)
				}
			}
			var not map[string]bool
			if base != "" {
				not, err = worktrees.NotMerged(ctx, main, base, names)
			}
			if base == "" || err != nil {
				// No base to ask about: each branch is looked at on its own below.
				not = map[string]bool{}
				for _, n := range names {
					not[n] = true
				}
			}
			for n, v := range not {
				unmerged[n] = unmerged[n] || v
			}
		}
		batch := &batch{run: func(ctx context.Context, ready []*Action) {
			names := make([]string, len(ready))
			for i, a := range ready {
				names[i] = a.Target
			}
			err := worktrees.DeleteBranches(ctx, main, names...)
			for _, a := range ready {
				if err != nil {
					a.Result, a.Detail = Failed, err.Error()
				} else {
					a.Result = Done
				}
			}
		}}
		for _, w := range ws {
			a := &Action{Step: StepBranch, Team: team, Target: w.Branch, Why: "made by teamctl for " + w.Member, needs: []*Action{wtOf[w.Path]}, batch: batch}
			if !existing[w.Branch] {
				a.Result, a.Detail, a.batch = Done, "already gone", nil
				acts = append(acts, p.add(a))
				continue
			}
			if unmerged[w.Branch] {
				loss, err := worktrees.BranchLoss(ctx, main, w.Branch, w.Base)
				if err != nil {
					a.Result, a.Detail = Failed, err.Error()
					acts = append(acts, p.add(a))
					continue
				}
				switch {
				case loss.Empty():
				case !p.o.Force:
					a.Loss = &loss
					a.Result, a.Detail = Refused, (&refusal{loss, "--force deletes it anyway"}).Error()
				default:
					a.Loss = &loss
					a.Detail = "--force: loses " + loss.String()
				}
			}
			acts = append(acts, p.add(a))
		}
	}
	return acts
}

func dedupeBases(ws []owned) []string {
	var out []string
	for _, w := range ws {
		if !slices.Contains(out, w.Base) {
			out = append(out, w.Base)
		}
	}
	return out
}

// removeOwned removes path, which must be inside root once symlinks in both
// are resolved; a symlink at path is removed as a link, and links inside are
// never followed (os.RemoveAll unlinks them).
func removeOwned(path, root string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return err
	}
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	if parent != r && !strings.HasPrefix(parent, r+string(filepath.Separator)) {
		return fmt.Errorf("%s resolves to %s, outside %s: left alone", path, filepath.Join(parent, filepath.Base(path)), r)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return os.Remove(path)
	}
	return os.RemoveAll(path)
}
