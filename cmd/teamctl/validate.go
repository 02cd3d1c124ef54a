package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/team"
)

// validateOptions are which layout file `teamctl validate` checks, and how
// it reports.
type validateOptions struct {
	IO       *iostreams.IO
	File     string
	JSON     bool
	Validate func(ctx context.Context, file string) team.Validation // team.Validate
}

// newValidateCmd makes `teamctl validate`; runF, when not nil, is run in
// validateRun's place (tests of the flags).
func newValidateCmd(ios *iostreams.IO, runF func(context.Context, *validateOptions) error) *cobra.Command {
	opts := &validateOptions{IO: ios, Validate: team.Validate}
	cmd := &cobra.Command{
		Use: "validate [LAYOUT]",
		Example: `  teamctl validate layout.yaml
  teamctl validate                 # ./teamctl.yaml (or .teamctl.yaml)
  teamctl validate layout.yaml --json`,
		Short: "Check a layout file and report every problem with its line and column",
		Long: `Check a layout file and report every problem at once, each as
FILE:LINE:COL: path: what is wrong. The exit code is 1 when the layout is not
valid; with --json the report is printed as JSON either way. Without LAYOUT it
checks the layout file of the current folder: teamctl.yaml, teamctl.yml,
.teamctl.yaml or .teamctl.yml, the first there is.

Beyond the file it checks what up would refuse, so that the two agree on
every layout: a program that is not there (Claude Code only for a team with a
lead; each command:'s), a member that wants a worktree outside a git
repository, an unreadable --settings file, a socket path too long. --json
prints {"file","valid","team","lead","members","problems":[{"file","line",
"col","path","message"}]} (a problem not at a place in the file has no line).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := layoutArg(cmd, ios, args, opts.JSON)
			if err != nil {
				return err
			}
			opts.File = file
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return validateRun(cmd.Context(), opts)
		},
	}
	addJSONFlag(cmd, &opts.JSON, "print the report as JSON: {file, valid, team, lead, members, problems: [{file, line, col, path, message}]}")
	return cmd
}

func validateRun(ctx context.Context, opts *validateOptions) error {
	v := opts.Validate(ctx, opts.File)
	if opts.JSON {
		if err := writeJSON(opts.IO, v); err != nil {
			return err
		}
	} else if v.Valid && v.Lead == "" {
		fmt.Fprintf(opts.IO.Out, "%s: team %s, %d plain process(es) and no lead: valid\n", opts.File, v.Team, v.Members)
	} else if v.Valid {
		fmt.Fprintf(opts.IO.Out, "%s: team %s, lead %s and %d member(s): valid\n", opts.File, v.Team, v.Lead, v.Members)
	} else {
		for _, p := range v.Problems {
			fmt.Fprintln(opts.IO.ErrOut, textsafe.Lines(problemLine(p)))
		}
	}
	if !v.Valid {
		return exitError{1}
	}
	return nil
}

// problemLine is a problem as the text output prints it (FILE:LINE:COL:
// path: msg, or FILE: msg for one not at a place in the file).
func problemLine(p team.ValidationProblem) string {
	if p.Line == 0 {
		return p.File + ": " + textsafe.Visible(p.Message)
	}
	return layouts.Problem{File: p.File, Line: p.Line, Col: p.Col, Path: p.Path, Msg: p.Message}.String()
}
