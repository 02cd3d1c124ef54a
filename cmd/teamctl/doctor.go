package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/doctor"
	"github.com/teamctl/teamctl/internal/iostreams"
)

// doctorOptions are what `teamctl doctor` acts on.
type doctorOptions struct {
	IO     *iostreams.IO
	Layout string // "" for none
	JSON   bool
	// Check makes the report (doctor.Checks with the team's tmux and
	// TEAMCTL_CLAUDE).
	Check func(ctx context.Context, layout string) ([]doctor.Check, error)
}

// newDoctorCmd makes `teamctl doctor`; runF, when not nil, is run in
// doctorRun's place (tests of the flags).
func newDoctorCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *doctorOptions) error) *cobra.Command {
	opts := &doctorOptions{IO: ios, Check: func(ctx context.Context, layout string) ([]doctor.Check, error) {
		return doctor.Checks(ctx, g.tmuxBin, os.Getenv("TEAMCTL_CLAUDE"), layout)
	}}
	cmd := &cobra.Command{
		Use: "doctor [LAYOUT]",
		Example: `  teamctl doctor
  teamctl doctor layout.yaml --json`,
		Short: "Check tmux, Claude Code, git and teamctl's folders, with a fix for each problem",
		Long: `Check tmux, Claude Code, git and teamctl's folders, with a fix for each problem.
With a layout, Claude Code is the layout's claude.command with its claude.args,
found as up finds it (TEAMCTL_CLAUDE still wins), and doctor also checks that
Claude Code trusts each Claude Code member's folder (its worktree's, for a
member with one): an untrusted folder stops the member at Claude Code's trust
dialog. Claude Code's version is checked against the versions teamctl's tests
ran on (claudecode/tested-versions.txt; a warning otherwise); teamctl's
stand-in is said as such, and a team of plain processes needs no Claude Code.
Exit 1 when a check fails.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Layout = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return doctorRun(cmd.Context(), opts)
		},
	}
	addJSONFlag(cmd, &opts.JSON, "")
	return cmd
}

func doctorRun(ctx context.Context, opts *doctorOptions) error {
	checks, err := opts.Check(ctx, opts.Layout)
	if err != nil {
		return err
	}
	if opts.JSON {
		if err := writeJSON(opts.IO, checks); err != nil {
			return err
		}
	} else {
		printChecks(opts.IO, checks)
	}
	if doctor.Failed(checks) {
		return exitError{1}
	}
	return nil
}
