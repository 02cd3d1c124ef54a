package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team"
)

// logsOptions are what `teamctl logs` prints.
type logsOptions struct {
	IO     *iostreams.IO
	Member string // "": every member's
	Logs   team.LogsOptions
	// Open opens the team the command acts on.
	Open func(ctx context.Context) (logger, error)
}

// logger is what logs needs of a team (a *team.Team).
type logger interface {
	Logs(ctx context.Context, member string, o team.LogsOptions, print func(string)) error
	LogsAll(ctx context.Context, o team.LogsOptions, out team.LogsAllOutput) error
}

// newLogsCmd makes `teamctl logs`; runF, when not nil, is run in logsRun's
// place (tests of the flags).
func newLogsCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *logsOptions) error) *cobra.Command {
	opts := &logsOptions{IO: ios, Open: func(ctx context.Context) (logger, error) {
		return g.openMember(ctx, "")
	}}
	cmd := &cobra.Command{
		Use: "logs [MEMBER]",
		Example: `  teamctl logs                # every member's, each line after its name
  teamctl logs -f             # and then what they print, interleaved
  teamctl logs web -f
  teamctl logs researcher -n 20 --team auth-fix`,
		Short: "Print what members' panes printed: their last lines, and why they ended",
		Long: `Print the last lines of a member's pane history (-n, default 100): of its
pane while it is there (dead or running), else the last lines teamctl kept of
it when it ended. A member restarted since its last run ended shows that run's
last lines first, under "--- previous run (exit 3, ended TIME) ---".

Without MEMBER, every member's, as docker compose logs and overmind show
them: each line after its member's name ("web   | …"; the name coloured on a
terminal), member after member (tmux keeps no time of a line), then with -f
the lines every pane prints, interleaved as they come.

With --follow (-f), keep printing the lines its pane prints, until Ctrl-C, its
program ends or its pane goes. A full-screen program (Claude Code) redraws its
screen rather than printing lines: then -f prints the lines that are new on
its screen, best effort.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Logs.Lines < 0 {
				return usagef(cmd, "-n %d: want a number of lines, 0 or more", opts.Logs.Lines)
			}
			if len(args) == 1 {
				opts.Member = args[0]
			}
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
	if opts.Member != "" {
		return t.Logs(ctx, opts.Member, opts.Logs, func(line string) {
			fmt.Fprintln(opts.IO.Out, textsafe.Visible(line))
		})
	}
	prefix := map[string]string{}
	return t.LogsAll(ctx, opts.Logs, team.LogsAllOutput{
		Members: func(names []string) { prefix = logPrefixes(opts.IO, names) },
		Line: func(member, line string) {
			fmt.Fprintln(opts.IO.Out, prefix[member]+textsafe.Visible(line))
		},
		Problem: func(err error) { fmt.Fprintf(opts.IO.ErrOut, "teamctl: %s\n", textsafe.Visible(err.Error())) },
	})
}

// logColors are the members' names' colours, in turn (as docker compose
// gives its services theirs): cyan, yellow, green, magenta, blue, and their
// bright kinds.
var logColors = []string{"36", "33", "32", "35", "34", "96", "93", "92", "95", "94"}

// logPrefixes are the members' line prefixes: the name, padded to the
// longest, then " | "; the name coloured when iostreams says colour is on
// (a terminal, no NO_COLOR).
func logPrefixes(io *iostreams.IO, names []string) map[string]string {
	w := 0
	for _, n := range names {
		w = max(w, len(textsafe.Visible(n)))
	}
	out := map[string]string{}
	for i, n := range names {
		v := textsafe.Visible(n)
		out[n] = io.Color(logColors[i%len(logColors)], v+strings.Repeat(" ", w-len(v))) + " | "
	}
	return out
}
