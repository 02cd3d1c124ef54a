// Package trust tells, for each Claude Code member of a layout, whether
// Claude Code will start in its folder without first asking whether to trust
// it (its trust dialog, where a member waits for a person): the folder (the
// member's worktree's, placed as up places it), the Claude Code config file
// that decides, and what that file says. up warns of the members that will
// stop (package team); doctor lists them all. It asks git only through
// package worktrees and reads Claude Code's config only through claudecode.
package trust

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/worktrees"
)

// Folder says whether Claude Code trusts the folder a member starts in.
type Folder struct {
	Member  string
	Dir     string // the member's folder: its worktree's, when it has one
	Config  string // the Claude Code config file that decides
	Trusted bool
	ByUp    bool // not yet, but up records it (a worktree with trust: true)
	// Worktree: the member works in a worktree of its own.
	Worktree bool
	Err      error
}

// Of tells, for every Claude Code member of l, whether Claude Code will
// start in its folder without asking whether to trust it.
//
// A layout whose Claude Code is teamctl's own stand-in (`teamctl demo`, the
// tests: `claude: {command: …/teamctl, args: [stand-in]}`) meets no trust
// dialog: nothing is said of it.
func Of(ctx context.Context, l *layouts.Layout) []Folder {
	if StandIn(l) {
		return nil
	}
	var out []Folder
	for _, m := range l.All() {
		if !m.IsClaude() || m.Host != "" {
			continue // another host's Claude Code trusts its folders there
		}
		ft := Folder{Member: m.Name, Dir: m.Cwd, Config: ConfigOf(l, m), Worktree: m.Worktree != nil}
		var top, main string
		if m.Worktree != nil {
			p, err := worktrees.PlaceOf(ctx, l, m)
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

// ConfigOf is the Claude Code config file member m of l's Claude Code reads,
// where its trust is kept.
func ConfigOf(l *layouts.Layout, m layouts.Member) string {
	getenv := func(name string) string { return launch.LookupEnv(l, m, name, os.Getenv) }
	return claudecode.GlobalConfigPath(getenv("CLAUDE_CONFIG_DIR"), getenv("HOME"))
}

// StandIn tells whether l's Claude Code members run teamctl's built-in
// stand-in rather than Claude Code, which asks nothing.
// TEAMCTL_CLAUDE, which up takes over the layout's claude.command, counts.
func StandIn(l *layouts.Layout) bool {
	prog := l.Claude.Command
	if o := os.Getenv("TEAMCTL_CLAUDE"); o != "" {
		prog = o
	}
	return len(l.Claude.Args) > 0 && l.Claude.Args[0] == "stand-in" && strings.HasPrefix(filepath.Base(prog), "teamctl")
}
