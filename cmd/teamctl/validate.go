package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/team"
)

// validation is `validate --json`: the same findings as the text output, one
// problem each; a problem not at a place in the file (a --settings file that
// cannot be read, TMUX_TMPDIR) has no line.
type validation struct {
	File     string              `json:"file"`
	Valid    bool                `json:"valid"`
	Team     string              `json:"team,omitempty"`
	Lead     string              `json:"lead,omitempty"`
	Members  int                 `json:"members"`
	Problems []validationProblem `json:"problems"`
}

type validationProblem struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

func newValidateCmd(io *iostreams.IO) *cobra.Command {
	var asJSON bool
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
.teamctl.yaml or .teamctl.yml, the first there is.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := layoutArg(cmd, io, args, asJSON)
			if err != nil {
				return err
			}
			args = []string{file}
			v := validate(cmd.Context(), args[0])
			if asJSON {
				if err := writeJSON(io, v); err != nil {
					return err
				}
			} else if v.Valid {
				fmt.Fprintf(io.Out, "%s: team %s, lead %s and %d member(s): valid\n", args[0], v.Team, v.Lead, v.Members)
			} else {
				for _, p := range v.Problems {
					fmt.Fprintln(io.ErrOut, textsafe.Lines(p.String()))
				}
			}
			if !v.Valid {
				return exitError{1}
			}
			return nil
		},
	}
	addJSONFlag(cmd, &asJSON, "print the report as JSON: {file, valid, team, lead, members, problems: [{file, line, col, path, message}]}")
	return cmd
}

// validate runs every check validate makes, as up would make them.
func validate(ctx context.Context, file string) validation {
	v := validation{File: file, Problems: []validationProblem{}}
	l, err := layouts.Parse(file)
	if err != nil {
		var le *layouts.Error
		if errors.As(err, &le) {
			ps := slices.Clone(le.Problems)
			slices.SortStableFunc(ps, func(a, b layouts.Problem) int {
				return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
			})
			for _, p := range ps {
				v.Problems = append(v.Problems, validationProblem{File: p.File, Line: p.Line, Col: p.Col, Path: p.Path, Message: p.Msg})
			}
		} else {
			v.Problems = append(v.Problems, validationProblem{File: file, Message: err.Error()})
		}
		return v
	}
	v.Team, v.Lead, v.Members = l.Team, l.Lead.Name, len(l.Members)
	// A layout's own --settings must be readable: Up merges teamctl's hooks into it.
	if err := launch.CheckSettings(l); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			v.Problems = append(v.Problems, validationProblem{File: file, Message: line})
		}
		return v
	}
	// Members that want a worktree where there can be none (not in a git
	// repository…): up would refuse them.
	for _, err := range team.CheckWorktrees(ctx, l) {
		v.Problems = append(v.Problems, validationProblem{File: file, Message: err.Error()})
	}
	if len(v.Problems) > 0 {
		return v
	}
	// Not the layout's fault, but up would fail on it: TMUX_TMPDIR is too long.
	if err := team.CheckSocket(l.Team); err != nil {
		v.Problems = append(v.Problems, validationProblem{File: file, Message: err.Error()})
		return v
	}
	v.Valid = true
	return v
}

// String is the problem as the text output prints it (FILE:LINE:COL: path: msg).
func (p validationProblem) String() string {
	if p.Line == 0 {
		return p.File + ": " + textsafe.Visible(p.Message)
	}
	return layouts.Problem{File: p.File, Line: p.Line, Col: p.Col, Path: p.Path, Msg: p.Message}.String()
}

// layoutArg is the layout file a command was given, else the current
// folder's own (layouts.DefaultFiles), said on stderr unless quiet, so that
// nobody wonders which file was taken.
func layoutArg(cmd *cobra.Command, io *iostreams.IO, args []string, quiet bool) (string, error) {
	if len(args) > 0 {
		return args[0], nil
	}
	file, err := layouts.FindDefault(".")
	if err != nil {
		return "", usagef(cmd, "%s: give its LAYOUT file (teamctl %s LAYOUT)", textsafe.Visible(err.Error()), cmd.Name())
	}
	if !quiet {
		fmt.Fprintf(io.ErrOut, "using %s\n", file)
	}
	return file, nil
}
