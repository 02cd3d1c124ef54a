package main

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/notify"
	"github.com/teamctl/teamctl/ptywatch"
	"github.com/teamctl/teamctl/stallwatch"
)

func newRunCmd(io *iostreams.IO) *cobra.Command {
	var quiet time.Duration
	var layoutPath string
	cmd := &cobra.Command{
		Use: "run [--quiet-period D] [--layout FILE] -- CMD ARGS...",
		Example: `  teamctl run -- npm install
  teamctl run --quiet-period 5s --layout layout.yaml -- ./deploy.sh`,
		Short: "Run one command in a pseudo-terminal and report on stderr when it waits at a prompt",
		Long: `Run CMD with its output passed through, watching it like the supervisor watches a
pane: when its output has been quiet for --quiet-period and it sits at a prompt
(y/n, Press Enter, Continue?, a Claude Code dialog, …), say so on stderr and run
the layout's watchdog.notify.command when --layout names one. Input is typed
into the command's terminal; where it ends, the terminal's end-of-file character
follows, as script(1) does. The exit code is the command's.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("quiet") {
				fmt.Fprintln(io.ErrOut, "teamctl run: --quiet is now --quiet-period (--quiet still works, for now)")
			}
			patterns := stallwatch.DefaultPatterns()
			var notifyCmd []string
			var team, member string
			if layoutPath != "" {
				l, err := layouts.Parse(layoutPath)
				if err != nil {
					return err
				}
				patterns = l.Watchdog.StallPatterns()
				notifyCmd = l.Watchdog.Notify.Command
				team, member = l.Team, runMember(l.Team)
				if !cmd.Flags().Changed("quiet-period") && !cmd.Flags().Changed("quiet") {
					quiet = l.Watchdog.Quiet
				}
			}
			cols, rows := ptywatch.TerminalSize(os.Stdout)
			// Notify commands still running when the command ends are waited
			// for (each has its own deadline), so that none is cut short.
			var notifying sync.WaitGroup
			defer notifying.Wait()
			code, err := ptywatch.Run(cmd.Context(), args, ptywatch.Options{
				Quiet: quiet, Detector: stallwatch.New(patterns), Stdin: io.In, Stdout: io.Out, Cols: cols, Rows: rows,
				OnStall: func(v stallwatch.Verdict) {
					fmt.Fprintf(io.ErrOut, "\nteamctl run: %s is waiting for input: %s (pattern %s)\n", args[0], textsafe.Visible(v.Line), textsafe.Visible(v.Pattern))
					if len(notifyCmd) > 0 {
						notifying.Go(func() {
							if err := notify.Run(cmd.Context(), notifyCmd, team, member, v); err != nil {
								fmt.Fprintf(io.ErrOut, "teamctl run: notify command %s: %v\n", notifyCmd[0], err)
							}
						})
					}
				},
			})
			if err != nil {
				return fmt.Errorf("run %s: %w", args[0], err)
			}
			if code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&quiet, "quiet-period", 2*time.Second, "how long the output must be quiet before the screen is checked (with --layout: its watchdog.quiet)")
	// Its old name, which meant a duration here while up's -q/--quiet is a
	// switch: still accepted, hidden, with a note on stderr (cobra's own
	// deprecation note would go to stdout, which is the command's).
	cmd.Flags().DurationVar(&quiet, "quiet", 2*time.Second, "")
	cmd.Flags().MarkHidden("quiet")
	cmd.Flags().StringVar(&layoutPath, "layout", "", "take watchdog patterns and notify.command from this layout")
	return cmd
}

// runMember is TEAMCTL_MEMBER for run's notify command: the member it runs in
// (teamctl sets TEAMCTL_TEAM and TEAMCTL_MEMBER in every member's pane, and a
// member's commands inherit them) when that member is of the layout's team,
// else "run".
func runMember(team string) string {
	if m := os.Getenv("TEAMCTL_MEMBER"); m != "" && os.Getenv("TEAMCTL_TEAM") == team {
		return m
	}
	return "run"
}
