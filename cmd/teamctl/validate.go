package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/supervisor"
)

func newValidateCmd(io *iostreams.IO) *cobra.Command {
	return &cobra.Command{
		Use: "validate LAYOUT",
		Example: `  teamctl validate layout.yaml
  teamctl validate layout.yaml --json`,
		Short: "Check a layout file and report every problem with its line and column",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := layouts.Parse(args[0])
			if err != nil {
				fmt.Fprintln(io.ErrOut, textsafe.Lines(err.Error()))
				return exitError{1}
			}
			// A layout's own --settings must be readable: Up merges teamctl's hooks into it.
			if err := supervisor.CheckSettings(l); err != nil {
				for _, line := range strings.Split(err.Error(), "\n") {
					fmt.Fprintf(io.ErrOut, "%s: %s\n", args[0], textsafe.Visible(line))
				}
				return exitError{1}
			}
			// Not the layout's fault, but up would fail on it: TMUX_TMPDIR is too long.
			if err := supervisor.CheckSocket(l.Team); err != nil {
				fmt.Fprintf(io.ErrOut, "%s: %s\n", args[0], err)
				return exitError{1}
			}
			fmt.Fprintf(io.Out, "%s: team %s, lead %s and %d member(s): valid\n", args[0], l.Team, l.Lead.Name, len(l.Members))
			return nil
		},
	}
}
