package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/team"
)

// diffOptions are what `teamctl diff` shows.
type diffOptions struct {
	IO      *iostreams.IO
	Members []string      // none: all
	Mode    team.DiffMode // DiffStat with JSON
	JSON    bool
	Color   string // auto, always, never
	// Open opens the team that has the member ("": the one --team names).
	Open func(ctx context.Context, member string) (differ, error)
}

// differ is what diff needs of a team (a *team.Team).
type differ interface {
	Diff(ctx context.Context, members []string, mode team.DiffMode) (*team.Changes, error)
}

// newDiffCmd makes `teamctl diff`; runF, when not nil, is run in diffRun's
// place (tests of the flags).
func newDiffCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *diffOptions) error) *cobra.Command {
	opts := &diffOptions{IO: ios, Open: func(ctx context.Context, member string) (differ, error) {
		return g.openMember(ctx, member)
	}}
	var stat, names bool
	cmd := &cobra.Command{
		Use:   "diff [MEMBER...]",
		Short: "Show what each member changed since its base, uncommitted work included",
		Long: `Show what each member changed: for a member with a worktree, the commits of
its branch since its base (where the branch left it) and the uncommitted and
untracked (not ignored) files of its worktree, as one patch; the members
without a worktree share a checkout (the team's root), whose uncommitted
changes are shown once, naming them all. Nothing of any checkout changes: the
files are read through a temporary index. Files over 100 MiB and folders that
are repositories of their own are left out, and said; submodules are not
followed. A worktree deleted by hand shows its branch's commits; a detached
HEAD or a rebase stopped half-way is said.

On a terminal the output is coloured and goes through $PAGER (else less -R),
as git's does. --stat lists each member's files with their lines added and
deleted, and the team's total; --name-only prints a line per file, the
member, a tab and the file; --json prints what --stat shows. Exit 1 when a
member's work could not be read (the rest is shown).`,
		Example: `  teamctl diff
  teamctl diff alice bob --stat
  teamctl diff --name-only --team auth-fix
  teamctl diff --json | jq '.work[] | {members, files: [.files[].path]}'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.Mode, err = diffMode(stat, names, opts.JSON, opts.Color); err != nil {
				return usagef(cmd, "%v", err)
			}
			if opts.Members = args; runF != nil {
				return runF(cmd.Context(), opts)
			}
			return diffRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&stat, "stat", false, "each member's files, with lines added and deleted, and the team's total")
	cmd.Flags().BoolVar(&names, "name-only", false, "a line per file: the member, a tab, the file")
	cmd.Flags().StringVar(&opts.Color, "color", "auto", "colour: auto (on a terminal), always or never")
	addJSONFlag(cmd, &opts.JSON, "print what --stat shows as JSON")
	g.addTeamFlag(cmd, teamFlagUsage)
	cmd.ValidArgsFunction = completeMembers(g)
	return cmd
}

func diffRun(ctx context.Context, opts *diffOptions) error {
	first := "" // with several teams up, the one that has the first member named
	if len(opts.Members) > 0 {
		first = opts.Members[0]
	}
	t, err := opts.Open(ctx, first)
	if err != nil {
		return err
	}
	ch, err := t.Diff(ctx, opts.Members, opts.Mode)
	if err != nil {
		return err
	}
	if opts.JSON {
		err = writeJSON(opts.IO, ch)
	} else {
		if err := opts.IO.StartPager(); err != nil {
			fmt.Fprintf(opts.IO.ErrOut, "teamctl: %v\n", err) // shown without one, as git does
		}
		printChanges(opts.IO.Out, ch, opts.Mode, opts.Color == "always" || opts.Color == "auto" && opts.IO.ColorOn())
		opts.IO.StopPager()
	}
	if unread := ch.Unread(); err == nil && len(unread) > 0 {
		err = fmt.Errorf("the work of %s could not be read (said above)", strings.Join(unread, ", "))
	}
	return err
}
