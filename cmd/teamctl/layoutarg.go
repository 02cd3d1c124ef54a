package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/layouts"
)

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
