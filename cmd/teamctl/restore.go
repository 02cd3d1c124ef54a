package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/worktrees"
)

// restoreOptions are which snapshot `teamctl restore` brings back, and where.
type restoreOptions struct {
	IO       *iostreams.IO
	Snapshot string
	Path     string // "": under the repository's worktrees.RestoredFolder
	JSON     bool
	Restore  func(ctx context.Context, name, path string) (worktrees.Restored, error)
}

// newRestoreCmd makes `teamctl restore`; runF, when not nil, is run in
// restoreRun's place (tests of the flags).
func newRestoreCmd(ios *iostreams.IO, runF func(context.Context, *restoreOptions) error) *cobra.Command {
	opts := &restoreOptions{IO: ios, Restore: snapshotRecord.Restore}
	cmd := &cobra.Command{
		Use: "restore SNAPSHOT [PATH]",
		Example: `  teamctl restore auth-fix/alice/20261201T154700Z
  teamctl restore auth-fix/alice ../alice-work   # the only snapshot of alice`,
		Short: "Bring back a snapshot as a new worktree on a new branch",
		Long: `Make a new git worktree of a snapshot (its ref, its name <team>/<member>/<time>,
or a prefix of either that only it has) at PATH, or at
<repository>/.teamctl/restored/<team>/<member>/<time> (excluded in
.git/info/exclude), on a new branch
teamctl-restored/<team>/<member>/<time>: nothing existing moves. A PATH that
exists is refused. Work that was not committed is the snapshot's own commit on
top of the member's branch (git reset HEAD^ there makes it uncommitted again).
The worktree is yours: no team records it and clean never removes it.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Snapshot, opts.Path = args[0], ""
			if len(args) == 2 {
				if opts.Path = args[1]; opts.Path == "" {
					return usagef(cmd, "PATH is empty")
				}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return restoreRun(cmd.Context(), opts)
		},
	}
	addJSONFlag(cmd, &opts.JSON, "print what was restored as JSON")
	return cmd
}

func restoreRun(ctx context.Context, opts *restoreOptions) error {
	r, err := opts.Restore(ctx, opts.Snapshot, opts.Path)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(opts.IO, r)
	}
	v := textsafe.Visible
	fmt.Fprintf(opts.IO.Out, "restored %s (commit %.12s) at %s, on branch %s\n", v(r.Name), r.Commit, v(r.Path), v(r.Branch))
	return nil
}
