package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/ptywatch"
	"github.com/teamctl/teamctl/stallwatch"
)

// runOptions are what `teamctl run` runs, and how it watches it.
type runOptions struct {
	IO       *iostreams.IO
	Argv     []string
	Quiet    time.Duration
	QuietSet bool   // --quiet-period (or --quiet) given: the layout's watchdog.quiet does not apply
	OldQuiet bool   // --quiet given, --quiet-period's old name
	Layout   string // --layout
	Cols     uint16 // the terminal's size (0: not a terminal)
	Rows     uint16
	Watch    func(ctx context.Context, argv []string, o ptywatch.WatchOptions) (int, error) // ptywatch.Watch
}

// newRunCmd makes `teamctl run`; runF, when not nil, is run in runRun's
// place (tests of the flags).
func newRunCmd(ios *iostreams.IO, runF func(context.Context, *runOptions) error) *cobra.Command {
	opts := &runOptions{IO: ios, Watch: ptywatch.Watch}
	cmd := &cobra.Command{
		Use: "run [--quiet-period D] [--layout FILE] -- CMD ARGS...",
		Example: `  teamctl run -- npm install
  teamctl run --quiet-period 5s --layout layout.yaml -- ./deploy.sh`,
		Short: "Run one command in a pseudo-terminal and report on stderr when it waits at a prompt",
		Long: `Run CMD with its output passed through, watching it like the supervisor watches a
pane: when its output has been quiet for --quiet-period and it sits at a prompt
(y/n, Press Enter, Continue?, a Claude Code dialog, …), say so on stderr and run
the layout's watchdog.notify.command when --layout names one (with the
layout's team as TEAMCTL_TEAM, and as TEAMCTL_MEMBER the team's member it runs
in, else run). Input is typed into the command's terminal; where it ends, the
terminal's end-of-file character follows once the command has read the rest,
as script(1) does (so printf 'a\nb\n' | teamctl run -- cat ends). The exit
code is the command's.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Argv, opts.OldQuiet = args, cmd.Flags().Changed("quiet")
			opts.QuietSet = opts.OldQuiet || cmd.Flags().Changed("quiet-period")
			opts.Cols, opts.Rows = ptywatch.TerminalSize(os.Stdout)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().DurationVar(&opts.Quiet, "quiet-period", 2*time.Second, "how long the output must be quiet before the screen is checked (with --layout: its watchdog.quiet)")
	// Its old name, which meant a duration here while up's -q/--quiet is a
	// switch: still accepted, hidden, with a note on stderr (cobra's own
	// deprecation note would go to stdout, which is the command's).
	cmd.Flags().DurationVar(&opts.Quiet, "quiet", 2*time.Second, "")
	cmd.Flags().MarkHidden("quiet")
	cmd.Flags().StringVar(&opts.Layout, "layout", "", "take watchdog patterns and notify.command from this layout")
	return cmd
}

func runRun(ctx context.Context, opts *runOptions) error {
	errOut, name := opts.IO.ErrOut, opts.Argv[0]
	if opts.OldQuiet {
		fmt.Fprintln(errOut, "teamctl run: --quiet is now --quiet-period (--quiet still works, for now)")
	}
	code, err := opts.Watch(ctx, opts.Argv, ptywatch.WatchOptions{
		Options: ptywatch.Options{Quiet: opts.Quiet, Stdin: opts.IO.In, Stdout: opts.IO.Out, Cols: opts.Cols, Rows: opts.Rows,
			OnStall: func(v stallwatch.Verdict) {
				fmt.Fprintf(errOut, "\nteamctl run: %s is waiting for input: %s (pattern %s)\n", name, textsafe.Visible(v.Line), textsafe.Visible(v.Pattern))
			}},
		Layout: opts.Layout, QuietSet: opts.QuietSet,
		OnNotifyError: func(program string, err error) {
			fmt.Fprintf(errOut, "teamctl run: notify command %s: %v\n", program, err)
		},
	})
	if err != nil {
		return err
	}
	if code != 0 {
		return exitError{code}
	}
	return nil
}
