package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/team"
)

// teamsOptions are how `teamctl teams` lists the teams.
type teamsOptions struct {
	IO   *iostreams.IO
	JSON bool
	List func(ctx context.Context) ([]team.TeamSummary, error) // team.List
	Now  func() time.Time
}

// newTeamsCmd makes `teamctl teams`; runF, when not nil, is run in
// teamsRun's place (tests of the flags).
func newTeamsCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *teamsOptions) error) *cobra.Command {
	opts := &teamsOptions{IO: ios, Now: time.Now, List: func(ctx context.Context) ([]team.TeamSummary, error) {
		return team.List(ctx, g.tmuxBin)
	}}
	cmd := &cobra.Command{
		Use: "teams",
		Example: `  teamctl teams
  teamctl teams --json`,
		Short: "List the teams teamctl knows, up or down",
		Long: `List every team teamctl has state for, up or down; what it spent (COST, from
its running supervisor's live.json; - for a team without one, whose figures
teamctl usage --team T reads from its transcripts: teams does not read every
team's transcripts each time it runs); and whether its supervisor runs
("supervisor" in --json): a team up without one is flagged NOT running, with
how to start it on stderr. With none it says "no teams up" (--json: []). A
team whose state cannot be read is a row marked error ("error" in --json),
with the reason on stderr; the others are listed and the exit code stays 0,
since the listing worked (as docker compose ls does).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return teamsRun(cmd.Context(), opts)
		},
	}
	addJSONFlag(cmd, &opts.JSON, "")
	return cmd
}

func teamsRun(ctx context.Context, opts *teamsOptions) error {
	ts, err := opts.List(ctx)
	if err != nil {
		return err
	}
	// A team that could not be looked at is a row with its error (and the
	// error on stderr); the exit code stays 0, as the listing itself
	// worked: `docker compose ls` does the same.
	if opts.JSON {
		return writeJSON(opts.IO, ts)
	}
	if len(ts) == 0 {
		fmt.Fprintln(opts.IO.Out, "no teams up: `teamctl up LAYOUT` brings one up")
		return nil
	}
	fmt.Fprint(opts.IO.Out, renderTeams(ts, opts.Now(), opts.IO.Width()))
	for _, t := range ts {
		if note := teamNote(t); note != "" {
			fmt.Fprintf(opts.IO.ErrOut, "teamctl: %s\n", note)
		}
	}
	return nil
}
