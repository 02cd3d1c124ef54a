package team

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// WorktreePlace is where a member's worktree goes and what it holds.
type WorktreePlace struct {
	Repo   worktrees.Repo
	Folder string // the team's worktrees folder (the layout's worktrees:, else <repo>/.teamctl/worktrees)
	Path   string // the worktree: <Folder>/<team>/<member>
	Cwd    string // the member's folder in it: the worktree plus where its cwd is in the repository
	Branch string
	Base   string // "" for the repository's HEAD
}

// PlaceWorktree finds where member m of layout l gets its worktree.
func PlaceWorktree(ctx context.Context, l *layouts.Layout, m layouts.Member) (WorktreePlace, error) {
	repo, err := worktrees.FindRepo(ctx, m.Cwd)
	if err != nil {
		return WorktreePlace{}, fmt.Errorf("member %s wants a worktree: %w", m.Name, err)
	}
	top, err1 := filepath.EvalSymlinks(repo.Top)
	cwd, err2 := filepath.EvalSymlinks(m.Cwd)
	rel, err3 := filepath.Rel(top, cwd)
	if err := firstErr(err1, err2, err3); err != nil {
		return WorktreePlace{}, fmt.Errorf("member %s: where %s is in its repository: %w", m.Name, m.Cwd, err)
	}
	folder := l.Worktrees
	if folder == "" {
		folder = filepath.Join(repo.Main, worktrees.DefaultFolder)
	}
	if err := worktrees.CheckFolder(folder, repo.Main); err != nil {
		return WorktreePlace{}, fmt.Errorf("member %s: worktrees: %w", m.Name, err)
	}
	p := WorktreePlace{Repo: repo, Folder: folder, Path: filepath.Join(folder, l.Team, m.Name), Branch: m.Worktree.Branch, Base: m.Worktree.Base}
	p.Cwd = filepath.Join(p.Path, rel)
	if p.Branch == "" {
		p.Branch = "teamctl/" + l.Team + "/" + m.Name
	}
	return p, nil
}

// CheckWorktrees says, for each member of l that wants a worktree, why it
// cannot have one where it is (not in a git repository, a bare one, a
// worktrees folder inside the checkout…): what `up` would refuse, found
// without making anything.
func CheckWorktrees(ctx context.Context, l *layouts.Layout) []error {
	var errs []error
	for _, m := range l.All() {
		if m.Worktree == nil {
			continue
		}
		if _, err := PlaceWorktree(ctx, l, m); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// prepareWorktrees makes (or reuses) every member's worktree and returns the
// layout with those members working in them, and the worktrees teamctl made,
// known ones first. What was made is returned along with an error too, so it
// can be recorded (clean removes only what state says is teamctl's).
func (u *upRun) prepareWorktrees(ctx context.Context, known []state.Worktree) (*layouts.Layout, []state.Worktree, error) {
	l := *u.l
	l.Members = slices.Clone(u.l.Members)
	ours := slices.Clone(known)
	excluded := map[string]bool{} // repositories whose info/exclude is done
	for i := -1; i < len(l.Members); i++ {
		m := &l.Lead
		if i >= 0 {
			m = &l.Members[i]
		}
		if m.Worktree == nil {
			continue
		}
		p, err := PlaceWorktree(ctx, u.l, *m)
		if err != nil {
			return nil, ours, err
		}
		made, err := worktrees.Ensure(ctx, worktrees.Spec{Main: p.Repo.Main, Path: p.Path, Branch: p.Branch, Base: p.Base})
		if err != nil {
			return nil, ours, fmt.Errorf("member %s: %w", m.Name, err)
		}
		i := slices.IndexFunc(ours, func(w state.Worktree) bool { return w.Path == p.Path })
		switch {
		case made.Created && i < 0:
			// The folder is recorded too: clean removes a recorded worktree
			// only at <folder>/<team>/<member>.
			ours = append(ours, state.Worktree{
				Member: m.Name, Path: p.Path, Main: p.Repo.Main, Folder: p.Folder, Branch: p.Branch,
				Base: made.Base, CreatedBranch: made.CreatedBranch, CreatedAt: u.w.clock.Now().UTC(),
			})
		case i >= 0 && ours[i].Folder == "" && ours[i].Main == p.Repo.Main:
			ours[i].Folder = p.Folder // recorded by an older teamctl
		}
		if made.Created {
			u.progress("%-16s worktree %s (branch %s)", m.Name, p.Path, p.Branch)
		}
		if u.l.Worktrees == "" && !excluded[p.Repo.Common] {
			if err := worktrees.Exclude(p.Repo.Common, "/"+worktrees.DefaultFolder+"/"); err != nil {
				return nil, ours, err
			}
			excluded[p.Repo.Common] = true
		}
		if err := os.MkdirAll(p.Cwd, 0o755); err != nil {
			return nil, ours, fmt.Errorf("member %s: %w", m.Name, err)
		}
		m.Cwd = p.Cwd
		if m.IsClaude() {
			if err := u.trust(*m, p); err != nil {
				return nil, ours, err
			}
		}
	}
	return &l, ours, nil
}

// trust makes sure Claude Code will not stop at its trust dialog in a member's
// worktree: a worktree of a trusted repository is trusted (wherever it is);
// otherwise the layout's trust: true records it, and without that a person is told.
func (u *upRun) trust(m layouts.Member, p WorktreePlace) error {
	cfg, dir := u.globalConfig(m), p.Path
	ok, err := claudecode.Trusted(cfg, p.Cwd, p.Path, p.Repo.Main)
	if err != nil || ok {
		return err
	}
	if !u.l.Trust {
		if runsStandIn(u.l) {
			return nil // teamctl's stand-in asks nothing
		}
		u.note("%s's worktree %s is not trusted by Claude Code, which will ask first (`teamctl answer` or attach); `trust: true` in the layout records it as trusted", m.Name, dir)
		return nil
	}
	if err := claudecode.Trust(cfg, dir); err != nil {
		return fmt.Errorf("member %s: %w", m.Name, err)
	}
	u.progress("%-16s trusted %s in %s", m.Name, dir, cfg)
	return nil
}

// warnUntrusted notes, folder by folder, the Claude Code members of l
// (without a worktree: prepareWorktrees speaks for those) that will stop at
// Claude Code's trust dialog because it does not trust their folder yet.
func (u *upRun) warnUntrusted(ctx context.Context, l *layouts.Layout) {
	var dirs []string
	who := map[string][]string{}
	for _, ft := range u.w.trustOf(ctx, l) {
		if ft.Trusted || ft.ByUp || ft.Err != nil || ft.Worktree {
			continue
		}
		if who[ft.Dir] == nil {
			dirs = append(dirs, ft.Dir)
		}
		who[ft.Dir] = append(who[ft.Dir], ft.Member)
	}
	for _, d := range dirs {
		u.note("Claude Code does not trust %s yet: %s will stop at its trust dialog (answer it in `teamctl top`, or start claude there once and trust the folder)", d, strings.Join(who[d], ", "))
	}
}

// globalConfig is the Claude Code config file member m's Claude Code reads.
func (u *upRun) globalConfig(m layouts.Member) string {
	getenv := func(name string) string { return launch.LookupEnv(u.l, m, name, os.Getenv) }
	return claudecode.GlobalConfigPath(getenv("CLAUDE_CONFIG_DIR"), getenv("HOME"))
}

// FolderTrust says whether Claude Code trusts the folder a member starts in.
type FolderTrust struct {
	Member  string
	Dir     string // the member's folder: its worktree's, when it has one
	Config  string // the Claude Code config file that decides
	Trusted bool
	ByUp    bool // not yet, but up records it (a worktree with trust: true)
	// Worktree: the member works in a worktree of its own.
	Worktree bool
	Err      error
}

// TrustOf tells, for every Claude Code member of l, whether Claude Code will
// start in its folder without asking whether to trust it.
//
// A layout whose Claude Code is teamctl's own stand-in (`teamctl demo`, the
// tests: `claude: {command: …/teamctl, args: [stand-in]}`) meets no trust
// dialog: nothing is said of it.
func TrustOf(ctx context.Context, l *layouts.Layout) []FolderTrust {
	if runsStandIn(l) {
		return nil
	}
	u := &upRun{l: l}
	var out []FolderTrust
	for _, m := range l.All() {
		if !m.IsClaude() {
			continue
		}
		ft := FolderTrust{Member: m.Name, Dir: m.Cwd, Config: u.globalConfig(m), Worktree: m.Worktree != nil}
		var top, main string
		if m.Worktree != nil {
			p, err := PlaceWorktree(ctx, l, m)
			if err != nil {
				ft.Err = err
				out = append(out, ft)
				continue
			}
			ft.Dir, ft.ByUp, top, main = p.Cwd, l.Trust, p.Path, p.Repo.Main
		} else if r, err := worktrees.FindRepo(ctx, m.Cwd); err == nil {
			top, main = r.Top, r.Main
		}
		ft.Trusted, ft.Err = claudecode.Trusted(ft.Config, ft.Dir, top, main)
		out = append(out, ft)
	}
	return out
}

// runsStandIn tells whether l's Claude Code members run teamctl's built-in
// stand-in rather than Claude Code.
// TEAMCTL_CLAUDE, which up takes over the layout's claude.command, counts.
func runsStandIn(l *layouts.Layout) bool {
	prog := l.Claude.Command
	if o := os.Getenv("TEAMCTL_CLAUDE"); o != "" {
		prog = o
	}
	return len(l.Claude.Args) > 0 && l.Claude.Args[0] == "stand-in" && strings.HasPrefix(filepath.Base(prog), "teamctl")
}
