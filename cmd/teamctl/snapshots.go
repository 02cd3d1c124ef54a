package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// snapshotRecord is the record, in teamctl's state root, of the
// repositories snapshots were taken in: where snapshots and restore look
// (with the current folder's repository).
var snapshotRecord = worktrees.SnapshotRecord{Dir: state.SnapshotRecordDir}

// snapshotsOptions are which snapshots `teamctl snapshots` lists, and how.
type snapshotsOptions struct {
	IO   *iostreams.IO
	Team string // --team: only this team's ("" for every team's)
	JSON bool
	// List lists them, with notes of repositories it could not read.
	List func(ctx context.Context, team string) ([]worktrees.SnapshotInfo, []string)
}

// newSnapshotsCmd makes `teamctl snapshots`; runF, when not nil, is run in
// snapshotsRun's place (tests of the flags).
func newSnapshotsCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *snapshotsOptions) error) *cobra.Command {
	opts := &snapshotsOptions{IO: ios, List: snapshotRecord.List}
	cmd := &cobra.Command{
		Use: "snapshots",
		Example: `  teamctl snapshots
  teamctl snapshots --team auth-fix --json`,
		Short: "List the snapshots clean --force kept of members' work",
		Long: `List the snapshots clean --force took before removing work that was not
merged (refs/teamctl/snapshots/<team>/<member>/<time>), in the repositories it
took them in and in the current folder's: team, member, time (UTC), commit, the
commit's subject (how many files were not committed, and on which branch),
and the repository. teamctl restore NAME brings one back.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if g.team != "" && !state.ValidTeamName(g.team) {
				return usagef(cmd, "--team %q is not a team name", g.team)
			}
			opts.Team = g.team
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return snapshotsRun(cmd.Context(), opts)
		},
	}
	addJSONFlag(cmd, &opts.JSON, "")
	g.addTeamFlag(cmd, "only the snapshots of this team")
	return cmd
}

func snapshotsRun(ctx context.Context, opts *snapshotsOptions) error {
	list, notes := opts.List(ctx, opts.Team)
	for _, n := range notes {
		fmt.Fprintf(opts.IO.ErrOut, "teamctl: %s\n", textsafe.Lines(n))
	}
	if opts.JSON {
		if list == nil {
			list = []worktrees.SnapshotInfo{}
		}
		return writeJSON(opts.IO, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(opts.IO.Out, "no snapshots")
		return nil
	}
	return writeSnapshots(opts.IO.Out, list)
}
