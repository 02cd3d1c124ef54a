package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team"
)

// logsOptions are what `teamctl logs` prints.
type logsOptions struct {
	IO     *iostreams.IO
	Member string
	Logs   team.LogsOptions
	// Open opens the team the command acts on.
	Open func(ctx context.Context) (logger, error)
}

// logger is what logs needs of a team (a *team.Team).
type logger interface {
	Logs(ctx context.Context, member string, o team.LogsOptions, print func(string)) error
}

// newLogsCmd makes `teamctl logs`; runF, when not nil, is run in logsRun's
// place (tests of the flags).
func newLogsCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *logsOptions) error) *cobra.Command {
	opts := &logsOptions{IO: ios, Open: func(ctx context.Context) (logger, error) {
		return g.openMember(ctx, "")
	}}
	cmd := &cobra.Command{
		Use: "logs MEMBER",
		Example: `  teamctl logs web
  teamctl logs web -f
  teamctl logs researcher -n 20 --team auth-fix`,
		Short: "Print what a member's pane printed: its last lines, and why it ended",
		Long: `Print the last lines of a member's pane history (-n, default 100): of its
pane while it is there (dead or running), else the last lines teamctl kept of
it when it ended. A member restarted since its last run ended shows that run's
last lines first, under "--- previous run (exit 3, ended TIME) ---".

With --follow (-f), keep printing the lines its pane prints, until Ctrl-C, its
program ends or its pane goes. A full-screen program (Claude Code) redraws its
screen rather than printing lines: then -f prints the lines that are new on
its screen, best effort.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Logs.Lines < 0 {
				return usagef(cmd, "-n %d: want a number of lines, 0 or more", opts.Logs.Lines)
			}
			opts.Member = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return logsRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVarP(&opts.Logs.Lines, "lines", "n", team.DefaultLogLines, "print the last N lines of each run")
	cmd.Flags().BoolVarP(&opts.Logs.Follow, "follow", "f", false, "keep printing the lines the pane prints")
	g.addTeamFlag(cmd, teamFlagUsage)
	cmd.ValidArgsFunction = completeMembers(g)
	return cmd
}

func logsRun(ctx context.Context, opts *logsOptions) error {
	t, err := opts.Open(ctx)
	if err != nil {
		return err
	}
	// The pane's lines are plain text (no escape sequences asked for);
	// whatever else a program put in them is made visible.
	return t.Logs(ctx, opts.Member, opts.Logs, func(line string) {
		fmt.Fprintln(opts.IO.Out, textsafe.Visible(line))
	})
}
