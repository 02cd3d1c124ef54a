package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/standin"
)

// standInOptions are the stand-in's command line, Claude Code's flags.
type standInOptions struct {
	IO   *iostreams.IO
	Args []string
	// Main is the stand-in, returning its exit code (standin.Main).
	Main func(args []string, stdin io.Reader, stdout io.Writer) int
}

// newStandInCmd is the stand-in agent: it takes Claude Code's flags and draws
// Claude-Code-like screens, for the demo and the tests. runF, when not nil,
// is run in standInRun's place (tests of the flags).
func newStandInCmd(ios *iostreams.IO, runF func(context.Context, *standInOptions) error) *cobra.Command {
	opts := &standInOptions{IO: ios, Main: func(args []string, stdin io.Reader, stdout io.Writer) int {
		// Die on SIGTERM and Ctrl-C as a real agent does; main caught them.
		signal.Reset(os.Interrupt, syscall.SIGTERM)
		return standin.Main(args, stdin, stdout)
	}}
	return &cobra.Command{
		Use:     "stand-in [claude flags] [-- prompt]",
		Example: `  teamctl stand-in --session-id 0b6c… --teammate-mode tmux -- "Coordinate the team."`,
		Short:   "A stand-in for Claude Code (for the demo and tests)",
		Long: `A stand-in for Claude Code: it takes Claude Code's command line (unknown
flags are skipped, as a newer Claude Code's would be), draws Claude-Code-like
screens, reads and writes Claude Code's team mailboxes, and asks the questions
teamctl's watchdog looks for. teamctl demo and the tests run it where Claude
Code would run; it needs no Claude Code and no API key.`,
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			// Its flags are Claude Code's, parsed by the stand-in itself; only
			// help is teamctl's (before "--", which starts the prompt).
			for _, a := range args {
				if a == "--" {
					break
				}
				if a == "--help" || a == "-h" {
					return cmd.Help()
				}
			}
			opts.Args = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return standInRun(cmd.Context(), opts)
		},
	}
}

func standInRun(_ context.Context, opts *standInOptions) error {
	if code := opts.Main(opts.Args, opts.IO.In, opts.IO.Out); code != 0 {
		return exitError{code}
	}
	return nil
}
