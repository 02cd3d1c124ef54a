package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/standin"
)

// newStandInCmd is the stand-in agent: it takes Claude Code's flags and draws
// Claude-Code-like screens, for the demo and the tests.
func newStandInCmd(io *iostreams.IO) *cobra.Command {
	return &cobra.Command{
		Use:                "stand-in [claude flags] [-- prompt]",
		Short:              "A stand-in for Claude Code (for the demo and tests)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			// Die on SIGTERM and Ctrl-C as a real agent does; main caught them.
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			if code := standin.Main(args, io.In, io.Out); code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
}
