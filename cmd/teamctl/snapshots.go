package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/clean"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
)

func newSnapshotsCmd(io *iostreams.IO, g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use: "snapshots",
		Example: `  teamctl snapshots
  teamctl snapshots --team auth-fix --json`,
		Short: "List the snapshots clean --force kept of members' work",
		Long: `List the snapshots clean --force took before removing work that was not
merged (refs/teamctl/snapshots/<team>/<member>/<time>), in the repositories it
took them in and in the current folder's: team, member, time (UTC), commit, the
commit's subject, and the repository. teamctl restore NAME brings one back.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if g.team != "" && !state.ValidTeamName(g.team) {
				return usagef(cmd, "--team %q is not a team name", g.team)
			}
			list, notes := clean.ListSnapshots(cmd.Context(), g.team)
			for _, n := range notes {
				fmt.Fprintf(io.ErrOut, "teamctl: %s\n", textsafe.Lines(n))
			}
			if asJSON {
				if list == nil {
					list = []clean.SnapshotInfo{}
				}
				return writeJSON(io, list)
			}
			if len(list) == 0 {
				fmt.Fprintln(io.Out, "no snapshots")
				return nil
			}
			v := textsafe.Visible
			tw := tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tTIME\tCOMMIT\tSUMMARY\tREPOSITORY")
			for _, s := range list {
				when := "-"
				if !s.Time.IsZero() {
					when = s.Time.Format("2006-01-02 15:04:05Z")
				}
				fmt.Fprintf(tw, "%s\t%s\t%.12s\t%s\t%s\n", v(s.Name), when, s.Commit, v(s.Summary), v(s.Repo))
			}
			return tw.Flush()
		},
	}
	addJSONFlag(cmd, &asJSON, "")
	g.addTeamFlag(cmd, "only the snapshots of this team")
	return cmd
}

func newRestoreCmd(io *iostreams.IO) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use: "restore SNAPSHOT [PATH]",
		Example: `  teamctl restore auth-fix/alice/20261201T154700Z
  teamctl restore auth-fix/alice ../alice-work   # the only snapshot of alice`,
		Short: "Bring back a snapshot as a new worktree on a new branch",
		Long: `Make a new git worktree of a snapshot (its ref, its name <team>/<member>/<time>,
or a prefix of either that only it has) at PATH, or at
<repository>/.teamctl/restored/<team>/<member>/<time>, on a new branch
teamctl-restored/<team>/<member>/<time>: nothing existing moves. A PATH that
exists is refused. Work that was not committed is the snapshot's own commit on
top of the member's branch (git reset HEAD^ there makes it uncommitted again).
The worktree is yours: no team records it and clean never removes it.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := ""
			if len(args) == 2 {
				if path = args[1]; path == "" {
					return usagef(cmd, "PATH is empty")
				}
			}
			r, err := clean.Restore(cmd.Context(), args[0], path)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(io, r)
			}
			v := textsafe.Visible
			fmt.Fprintf(io.Out, "restored %s (commit %.12s) at %s, on branch %s\n", v(r.Name), r.Commit, v(r.Path), v(r.Branch))
			return nil
		},
	}
	addJSONFlag(cmd, &asJSON, "print what was restored as JSON")
	return cmd
}
