package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/layouts"
)

func newValidateCmd(io *iostreams.IO) *cobra.Command {
	return &cobra.Command{
		Use:   "validate LAYOUT",
		Short: "Check a layout file and report every problem with its line and column",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := layouts.Parse(args[0])
			if err != nil {
				fmt.Fprintln(io.ErrOut, err)
				return exitError{1}
			}
			fmt.Fprintf(io.Out, "%s: team %s, lead %s and %d member(s): valid\n", args[0], l.Team, l.Lead.Name, len(l.Members))
			return nil
		},
	}
}
