package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
)

// versionOptions are what `teamctl version` prints.
type versionOptions struct {
	IO      *iostreams.IO
	Version func() string // versionString
}

// newVersionCmd makes `teamctl version`; runF, when not nil, is run in
// versionRun's place (tests of the flags).
func newVersionCmd(ios *iostreams.IO, runF func(context.Context, *versionOptions) error) *cobra.Command {
	opts := &versionOptions{IO: ios, Version: versionString}
	return &cobra.Command{
		Use: "version",
		Example: `  teamctl version
  teamctl --version`,
		Short: "Print teamctl's version (as --version does)",
		Long: `Print teamctl's version, as --version does: the module version from the
build info. A build from a git clone gets a pseudo-version from its commit
(v0.0.0-20261201155939-cf9b9400d86e, +dirty with uncommitted changes); a build
without version control information (-buildvcs=false, which some machines set
in GOFLAGS) says (devel).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return versionRun(cmd.Context(), opts)
		},
	}
}

func versionRun(_ context.Context, opts *versionOptions) error {
	fmt.Fprintf(opts.IO.Out, "teamctl %s\n", opts.Version())
	return nil
}
