package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/team"
)

// mergeOptions are what `teamctl merge` lands.
type mergeOptions struct {
	IO      *iostreams.IO
	Members []string
	Merge   team.MergeOptions
	JSON    bool
	// Open opens the team that has the first member.
	Open func(ctx context.Context, member string) (merger, error)
}

// merger is what merge needs of a team (a *team.Team).
type merger interface {
	Merge(ctx context.Context, members []string, o team.MergeOptions) (*team.MergeResult, error)
}

// newMergeCmd makes `teamctl merge`; runF, when not nil, is run in
// mergeRun's place (tests of the flags).
func newMergeCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *mergeOptions) error) *cobra.Command {
	opts := &mergeOptions{IO: ios, Open: func(ctx context.Context, member string) (merger, error) {
		return g.openMember(ctx, member)
	}}
	cmd := &cobra.Command{
		Use:   "merge MEMBER...",
		Short: "Land members' branches into their base, without a checkout",
		Long: `Land each member's branch into the branch its worktree was made from (as
up recorded it in the branch's git config, branch.<name>.teamctl-base, else
the layout's base; a state.json that says otherwise is refused, saying both),
or --into another, in the order given, stopping at
the first member refused and saying what landed. The merge is computed
without a checkout (git merge-tree --write-tree, then commit-tree: a merge
commit with both parents, or with --squash one commit of the member's
changes) and the branch is moved only if it is still where it was read
(update-ref NEW OLD): a merge that loses a race to another is refused, and
nothing of either is lost.

Where the target branch is checked out (your main checkout, a worktree), that
checkout is brought forward too, only when it has no uncommitted or
untracked file, with git read-tree -m -u (git's own fast-forward of the index
and files, which overwrites nothing); otherwise the merge is refused and
nothing moves. Refused too: a member with uncommitted work (--wip commits it
on the member's branch first, saying so in the commit), one whose worktree
has a rebase or merge stopped half-way, and a merge that would conflict (the
files are listed; teamctl conflicts shows them before).

Exit 1 when a member is refused (those before it have landed), 2 on a usage
error.`,
		Example: `  teamctl merge alice
  teamctl merge alice bob --squash --into release
  teamctl merge alice --wip --message "auth: token refresh"`,
		Args: cobra.MinimumNArgs(1),
	}
	addMergeFlags(cmd, &opts.Merge)
	addJSONFlag(cmd, &opts.JSON, "")
	return memberList(g, cmd, &opts.Members, opts, nil, runF, mergeRun)
}

func mergeRun(ctx context.Context, opts *mergeOptions) error {
	t, err := opts.Open(ctx, opts.Members[0])
	if err != nil {
		return err
	}
	res, err := t.Merge(ctx, opts.Members, opts.Merge)
	if err != nil {
		return err
	}
	if opts.JSON {
		if err := writeJSON(opts.IO, res); err != nil {
			return err
		}
	} else {
		for _, l := range res.Landed {
			printLanded(opts.IO.Out, "landed", l)
		}
	}
	return refused(opts.IO, res.Refused, !opts.JSON)
}
