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
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/owned"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// candidate is one worktree clean may remove: one teamctl made (Recorded), or one
// Claude Code made for a teammate of the team. Neither record is trusted as
// it is (state.json and Claude Code's config.json can be edited): each is
// checked against git and against where teamctl and Claude Code put worktrees.
// One Claude Code's config names must also be vouched for by teamctl's own
// record (vouch): its config is the team's agents' to write, and may name
// anyone's worktree — a person's own `claude --worktree` session's.
type candidate struct {
	state.Worktree
	Recorded bool
	branch   string                                    // of a record: the name the layout gives its branch
	vouch    func(path string, e worktrees.Entry) bool // nil: nothing vouches
}

// vouchOf says, from the team's record, whether a worktree Claude Code's
// config names is the team's: one of the team's members ran in it (its cwd,
// as teamctl recorded it when it launched or adopted the member, is the
// worktree or a folder in it), or teamctl recorded the branch it is on.
func vouchOf(st *state.Team) func(path string, e worktrees.Entry) bool {
	var cwds []string
	for _, m := range st.Members {
		if filepath.IsAbs(m.Cwd) {
			cwds = append(cwds, m.Cwd)
		}
	}
	branches := map[string]bool{}
	for _, w := range st.Worktrees {
		if w.Branch != "" {
			branches[w.Branch] = true
		}
	}
	return func(path string, e worktrees.Entry) bool {
		if !e.Detached && branches[e.Branch] {
			return true
		}
		return slices.ContainsFunc(cwds, func(cwd string) bool { return within(cwd, path) })
	}
}

// within reports whether path is dir or a folder in it, as written or once
// the symlinks of both are resolved.
func within(path, dir string) bool {
	in := func(p, d string) bool {
		rel, err := filepath.Rel(d, p)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
	if in(filepath.Clean(path), filepath.Clean(dir)) {
		return true
	}
	rp, err1 := filepath.EvalSymlinks(path)
	rd, err2 := filepath.EvalSymlinks(dir)
	return err1 == nil && err2 == nil && in(rp, rd)
}

// worktrees plans the team's worktrees, a prune of each repository, and the
// branches teamctl made for them. It returns what the team's folders wait
// for: not the worktrees left as not the team's.
func (p *planner) worktrees(ctx context.Context, team string, st *state.Team, lives []claudeLife, before []*Action) []*Action {
	var list []candidate
	seen := map[string]bool{}
	for _, w := range st.Worktrees {
		list = append(list, candidate{Worktree: w, Recorded: true})
		seen[filepath.Clean(w.Path)] = true
	}
	vouch := vouchOf(st)
	for _, life := range lives {
		for _, w := range claudeWorktrees(life.configDir, life.name) {
			if !seen[filepath.Clean(w)] {
				list = append(list, candidate{Worktree: state.Worktree{Path: w}, vouch: vouch})
				seen[filepath.Clean(w)] = true
			}
		}
	}
	// The layout says whose a record is, and where its worktree may be.
	layout, layoutErr := owned.ParseLayout(st.LayoutPath)
	snapsBefore := len(p.snaps)
	var acts []*Action
	var ours []candidate
	byPath := map[string]wtPlan{}
	var mains []string
	removals := atOnce() // each removal stands alone: git checks each worktree on its own
	for _, w := range list {
		wp := p.worktree(ctx, team, &w, layout, layoutErr, before)
		if wp.a.notOurs {
			continue
		}
		if wp.a.do != nil {
			wp.a.batch = removals
		}
		acts = append(acts, wp.a)
		ours = append(ours, w)
		byPath[w.Path] = wp
		if isMainCheckout(wp.main) && !slices.Contains(mains, wp.main) {
			mains = append(mains, wp.main)
		}
	}
	for _, main := range mains {
		acts = append(acts, p.add(&Action{Step: StepWorktree, Team: team, Target: main, Why: "git worktree prune: git forgets removed worktrees", needs: before,
			do: func(ctx context.Context) error { return worktrees.Prune(ctx, main) }}))
	}
	acts = append(acts, p.branches(ctx, team, ours, byPath, before)...)
	for _, sp := range p.snaps[snapsBefore:] {
		acts = append(acts, sp.a)
	}
	return acts
}

// wtPlan is what planning a worktree found.
type wtPlan struct {
	a     *Action
	main  string           // the main checkout to prune, or ""
	entry *worktrees.Entry // git's entry for it, when git lists it as a linked worktree
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
			if m.WorktreePath != "" {
				out = append(out, m.WorktreePath)
			}
		}
	}
	return out
}

// notOurs leaves a worktree that nothing says is the team's, saying why.
func notOurs(a *Action, why string) *Action {
	a.Result, a.Detail, a.notOurs = Kept, NotOurs+" ("+why+")", true
	return a
}

// worktree plans one worktree: git worktree remove, run in the main checkout,
// which itself refuses a worktree with uncommitted changes or untracked files;
// the refusal then lists them (a dry run looks first). A worktree's commits
// stay on its branch, which is checked on its own; a detached HEAD's commits
// would not, so those are checked before.
//
// Only a linked worktree that git lists in its main checkout is removed, and
// only where its maker puts them: teamctl's at <folder>/<team>/<member>, for
// a member of the layout and where the layout puts its worktree (owned.LayoutPlace),
// Claude Code's at <main checkout>/.claude/worktrees/<slug> on a worktree-…
// branch, and then only when the team's record vouches for it (w.vouch).
// Anything else is left as not the team's, with or without Force. A
// folder of teamctl's that git no longer knows is removed only when empty.
// With Force, each worktree is looked at first: one holding work gets a
// snapshot, and only then is it removed with git's --force; one that holds
// none is removed without it, so work that appears meanwhile is refused by
// git, never lost.
func (p *planner) worktree(ctx context.Context, team string, ow *candidate, layout *layouts.Layout, layoutErr error, before []*Action) (wp wtPlan) {
	w := *ow
	a := &Action{Step: StepWorktree, Team: team, Target: w.Path, needs: before}
	wp.a = a
	a.Why = "made by teamctl for " + w.Member
	if !w.Recorded {
		a.Why = "named by Claude Code's team config as a teammate's worktree"
	}
	done := func() wtPlan { p.add(a); return wp }
	skip := func(why string) wtPlan { // not the team's: nothing to prune either
		notOurs(a, why)
		wp.main = ""
		return done()
	}
	fail := func(err error) wtPlan {
		a.Result, a.Detail, wp.main = Failed, err.Error(), ""
		return done()
	}
	if !filepath.IsAbs(w.Path) {
		return skip("not an absolute path")
	}
	var root string // teamctl's folder of the team's worktrees
	if w.Recorded {
		rw, place, err := owned.LayoutPlace(ctx, layout, layoutErr, w.Worktree)
		if err != nil {
			return skip(err.Error())
		}
		ow.branch = place.Branch
		if root, err = owned.TeamctlPlace(team, rw); err != nil {
			return skip(err.Error())
		}
		ow.Worktree, w.Worktree = rw, rw
		wp.main = w.Main
	}
	fi, err := os.Lstat(w.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		a.Result, a.Detail = Done, "already gone"
		return done() // git may still list it: prune
	case err != nil:
		return fail(err)
	case fi.Mode()&fs.ModeSymlink != 0 && w.Recorded:
		// At teamctl's own place; never followed: the link alone goes.
		a.Detail = "a symlink, removed as a link"
		a.do = func(ctx context.Context) error { return removeOwned(w.Path, root) }
		wp.main = ""
		return done()
	case !fi.IsDir():
		return skip("not a folder")
	}
	if !w.Recorded {
		if wp.main, err = claudePlace(w.Path); err != nil {
			return skip(err.Error())
		}
	}
	main := wp.main
	e, err := worktrees.Linked(ctx, main, w.Path)
	switch {
	case errors.Is(err, worktrees.ErrNotWorktree) && w.Recorded:
		p.notAWorktree(a, w)
		return done()
	case errors.Is(err, worktrees.ErrNotWorktree):
		return skip("git lists no such linked worktree in " + main)
	case err != nil:
		return fail(err)
	case !w.Recorded && !strings.HasPrefix(e.Branch, "worktree-"):
		// Claude Code 2.1.328 makes every worktree of its own on branch
		// worktree-<slug>; a detached one, or one on another branch, was not
		// made that way or has become someone's.
		on := "a detached HEAD"
		if !e.Detached {
			on = "branch " + e.Branch
		}
		return skip("on " + on + ", not the worktree-… branch Claude Code makes")
	case !w.Recorded && (w.vouch == nil || !w.vouch(w.Path, e)):
		// Only Claude Code's config names it, which the team's agents write.
		return skip("no member of the team ran in it and teamctl recorded no branch of it; only Claude Code's config names it")
	}
	wp.entry = &e
	force := false // git's --force: only once a snapshot holds the work
	if e.Detached || p.o.DryRun || p.o.Force {
		var loss worktrees.Loss
		if e.Detached {
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
				a.Result, a.Detail = Refused, (&refusal{loss, "--force removes it anyway, once a snapshot holds it"}).Error()
				return done()
			}
			sp := p.snapshotOf(team, snapshotMember(w), main, w.Path, before)
			sp.because(fmt.Sprintf("--force removes %s, which holds %s", w.Path, loss.String()))
			a.needs = append(a.needs, sp.a)
			a.Detail = "--force: its work is kept in snapshot " + sp.a.Target
			if out := worktrees.LeftOutOf(w.Path, append(loss.Changed, loss.Untracked...)); len(out) > 0 {
				a.Detail += "; lost: " + leftOutList(out) + ", left out of it"
			}
			force = true
		}
	}
	hint := "--force removes it anyway, once a snapshot holds it"
	if p.o.Force {
		hint = "it changed after clean looked at it: run clean --force again"
	}
	a.do = func(ctx context.Context) error {
		err := worktrees.Remove(ctx, main, w.Path, force)
		switch {
		case errors.Is(err, worktrees.ErrDirty):
			loss, lerr := worktrees.Changes(ctx, w.Path)
			if lerr != nil {
				return fmt.Errorf("%w; and listing what: %w", err, lerr)
			}
			return &refusal{loss, hint}
		case errors.Is(err, worktrees.ErrNotWorktree):
			// git forgot it meanwhile: what is left is a folder git cannot vouch for.
			if files := filesIn(w.Path); len(files) > 0 {
				return &refusal{worktrees.Loss{Untracked: files}, notAWorktreeHint}
			}
			return removeEmptyTree(w.Path)
		}
		return err
	}
	return done()
}

// snapshotMember is the member part of a worktree's snapshot name: the
// member teamctl recorded, or the slug of Claude Code's worktree folder.
func snapshotMember(w candidate) string {
	if w.Recorded {
		return w.Member
	}
	return filepath.Base(w.Path)
}

const notAWorktreeHint = "not a git worktree (any more), so git cannot tell what in it is work: clean removes such a folder only when it is empty, --force or not; look and remove it yourself"

// notAWorktree plans a folder at teamctl's place that git does not know as a
// worktree (any more): removed only when nothing but empty folders is in it.
// Force does not change that: git cannot tell what in it is a person's work.
func (p *planner) notAWorktree(a *Action, w candidate) {
	if files := filesIn(w.Path); len(files) > 0 {
		a.Loss = &worktrees.Loss{Untracked: files}
		a.Result, a.Detail = Refused, (&refusal{*a.Loss, notAWorktreeHint}).Error()
		return
	}
	a.Detail = "not a git worktree, and empty: the folder is removed"
	a.do = func(ctx context.Context) error { return removeEmptyTree(w.Path) }
}

// removeEmptyTree removes dir and the folders in it, which must hold nothing
// else: os.Remove never removes a folder with something in it, so a file that
// appeared since dir was looked at stays, and so do its folders.
func removeEmptyTree(dir string) error {
	var dirs []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return fmt.Errorf("%s is not empty: %s is in it", dir, path)
		}
		dirs = append(dirs, path)
		return nil
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Remove(dirs[i]); err != nil {
			return err
		}
	}
	return nil
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
