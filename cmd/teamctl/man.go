package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/teamctl/teamctl/internal/iostreams"
)

// manOptions are what `teamctl man` writes.
type manOptions struct {
	IO       *iostreams.IO
	Dir      *string        // DIR, for a page per command in it; nil: teamctl(1) on stdout
	Markdown bool           // pages in Markdown (docs/commands), not man
	Root     *cobra.Command // the commands to document: teamctl's
}

// newManCmd makes `teamctl man`; runF, when not nil, is run in manRun's
// place (tests of the flags).
func newManCmd(ios *iostreams.IO, runF func(context.Context, *manOptions) error) *cobra.Command {
	opts := &manOptions{IO: ios}
	c := &cobra.Command{
		Use: "man [DIR]",
		Example: `  teamctl man | man -l -                         # read teamctl(1) now
  teamctl man ~/.local/share/man/man1            # install every page: man teamctl-up
  teamctl man --markdown docs/commands           # the command reference in the repository`,
		Short: "Print teamctl's manual page, or write one per command into DIR",
		Long: `Print the manual page teamctl(1) on stdout, or, with DIR, write one page per
command into it (teamctl.1, teamctl-up.1, …; DIR is made when missing), made
from the same text as --help. With --markdown, DIR gets one Markdown page per
command instead (teamctl.md, teamctl_up.md, …): the reference in the
repository's docs/commands, which a test keeps equal to what the commands say.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Root = cmd.Root()
			if len(args) == 1 {
				opts.Dir = &args[0]
			}
			if opts.Markdown && opts.Dir == nil {
				return usagef(cmd, "--markdown writes into a folder: name it (teamctl man --markdown docs/commands)")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return manRun(cmd.Context(), opts)
		},
	}
	c.Flags().BoolVar(&opts.Markdown, "markdown", false, "write Markdown pages (the command reference) into DIR instead of manual pages")
	return c
}

func manRun(_ context.Context, opts *manOptions) error {
	header := &doc.GenManHeader{Title: "TEAMCTL", Section: "1", Source: "teamctl " + versionString(), Manual: "teamctl manual"}
	if opts.Dir == nil {
		return doc.GenMan(opts.Root, header, opts.IO.Out)
	}
	dir := *opts.Dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	if opts.Markdown {
		n, err := writeMarkdownPages(opts.Root, dir)
		if err != nil {
			return err
		}
		fmt.Fprintf(opts.IO.Out, "wrote %d Markdown pages into %s\n", n, dir)
		return nil
	}
	n, err := writeManPages(opts.Root, header, dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "wrote %d manual pages into %s\n", n, dir)
	return nil
}
