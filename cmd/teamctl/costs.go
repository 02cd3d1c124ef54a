package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/team"
	"github.com/teamctl/teamctl/usage"
)

// usageOptions are what `teamctl usage` reports. (The command's files are
// costs*.go: usage.go is the usage errors' file.)
type usageOptions struct {
	IO      *iostreams.IO
	JSON    bool
	Since   time.Time
	Members []string
	// Read reads the team's usage (a *team.Team's Usage).
	Read func(ctx context.Context, o team.UsageOptions) (*usage.Report, error)
}

// newUsageCmd makes `teamctl usage`; runF, when not nil, is run in
// usageRun's place (tests of the flags).
func newUsageCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *usageOptions) error) *cobra.Command {
	opts := &usageOptions{IO: ios}
	var since string
	cmd := &cobra.Command{
		Use: "usage [MEMBER...]",
		Example: `  teamctl usage
  teamctl usage lead alice --since 2h
  teamctl usage --team auth-fix --json`,
		Short: "Show what the team's members spent: tokens, turns, models and cost",
		Long: `Show, per member and for the team, the tokens each member's Claude Code
sessions used (input, output, cache writes, cache reads; their subagents'
included), the turns (model responses), the models and the cost. A team that
is down is shown the same way, from the sessions its state recorded.

Figures come from Claude Code's own transcripts, each response counted once;
a Codex or Gemini member's from its own CLI's records in its home (Codex's
rollouts, Gemini CLI's chats), which hold its turns but not the CLI's side
requests (a session's title, Gemini's routing). Costs come from the price table shipped with teamctl (dated), or a
prices.yaml in teamctl's config folder ($XDG_CONFIG_HOME/teamctl); a model
missing from the table is counted in tokens and shown "no price".`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if since != "" {
				t, err := parseSince(since, time.Now())
				if err != nil {
					return usagef(cmd, "--since %q: %v", since, err)
				}
				opts.Since = t
			}
			opts.Members = args
			if opts.Read == nil {
				opts.Read = func(ctx context.Context, o team.UsageOptions) (*usage.Report, error) {
					member := ""
					if len(o.Members) > 0 {
						member = o.Members[0]
					}
					t, err := g.openMember(ctx, member)
					if err != nil {
						return nil, err
					}
					return t.Usage(o)
				}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return usageRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&since, "since", "", "only responses since then: a duration back from now (2h) or an RFC 3339 time")
	addJSONFlag(cmd, &opts.JSON, "")
	g.addTeamFlag(cmd, "the team to report (default: $TEAMCTL_TEAM, else the team of this pane or folder, else the only team up); a team that is down too")
	cmd.ValidArgsFunction = completeMembers(g)
	return cmd
}

func usageRun(ctx context.Context, opts *usageOptions) error {
	r, err := opts.Read(ctx, team.UsageOptions{Since: opts.Since, Members: opts.Members})
	if err != nil {
		return err
	}
	if r.PriceFileError != "" {
		fmt.Fprintf(opts.IO.ErrOut, "teamctl: %s\n", r.PriceFileError)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(opts.IO.ErrOut, "teamctl: transcript %s\n", n)
	}
	if opts.JSON {
		return writeJSON(opts.IO, r)
	}
	fmt.Fprint(opts.IO.Out, renderUsage(r, opts.IO.Width()))
	return nil
}
