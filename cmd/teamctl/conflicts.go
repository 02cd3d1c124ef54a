package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/team"
)

// conflictsOptions are what `teamctl conflicts` prints.
type conflictsOptions struct {
	IO   *iostreams.IO
	JSON bool
	// Open opens the team the command is about.
	Open func(ctx context.Context) (conflicter, error)
}

// conflicter is what conflicts needs of a team (a *team.Team).
type conflicter interface {
	Conflicts(ctx context.Context) (*team.Conflicts, error)
}

// newConflictsCmd makes `teamctl conflicts`; runF, when not nil, is run in
// conflictsRun's place (tests of the flags).
func newConflictsCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *conflictsOptions) error) *cobra.Command {
	opts := &conflictsOptions{IO: ios, Open: func(ctx context.Context) (conflicter, error) {
		return g.openMember(ctx, "")
	}}
	cmd := &cobra.Command{
		Use:   "conflicts",
		Short: "Tell whether merging the members' work would conflict, uncommitted work included",
		Long: `Tell, for every pair of members with worktrees of one repository, what merging
their work would do: the files both change, each its own way, and those whose
merge would stop with a conflict (and its kind: contents, modify/delete,
binary…). And each member's work merged into its base branch, where that
moved since the member's branch left it. A member's work is its branch's
commits and its uncommitted and untracked files, as one commit made through
a temporary index; the merge is git merge-tree --write-tree (git 2.38 or
later): no checkout, no index, no branch changes. Members without a worktree
are named, not compared.

Exit 1 when a merge would conflict, or a member's work could not be read or
compared; 0 when nothing conflicts.`,
		Example: `  teamctl conflicts
  teamctl conflicts --team auth-fix --json | jq '.pairs[] | select(.conflicts | length > 0)'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return conflictsRun(cmd.Context(), opts)
		},
	}
	addJSONFlag(cmd, &opts.JSON, "")
	g.addTeamFlag(cmd, teamFlagUsage)
	return cmd
}

func conflictsRun(ctx context.Context, opts *conflictsOptions) error {
	t, err := opts.Open(ctx)
	if err != nil {
		return err
	}
	c, err := t.Conflicts(ctx)
	if err != nil {
		return err
	}
	if opts.JSON {
		err = writeJSON(opts.IO, c)
	} else {
		printConflicts(opts.IO.Out, c, opts.IO.ColorOn())
	}
	switch {
	case err != nil:
		return err
	case c.Failed():
		return errors.New("some work could not be read or compared (said above)")
	case c.Found():
		return exitError{1} // a conflict: said above, as git merge-tree's exit 1
	}
	return nil
}
