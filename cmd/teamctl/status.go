package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/team"
)

// statusOptions are how `teamctl status` shows the team.
type statusOptions struct {
	IO          *iostreams.IO
	JSON, Watch bool
	// Open opens the team acted on.
	Open func(ctx context.Context) (statuser, error)
	// Follow is status -w: the team's status until ctx ends (statuswatch.go).
	Follow func(ctx context.Context) error
	Now    func() time.Time
}

// statuser is what status needs of a team (a *team.Team).
type statuser interface {
	Status(ctx context.Context) (*team.Status, error)
}

// newStatusCmd makes `teamctl status`; runF, when not nil, is run in
// statusRun's place (tests of the flags).
func newStatusCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *statusOptions) error) *cobra.Command {
	opts := &statusOptions{IO: ios, Now: time.Now,
		Open: func(ctx context.Context) (statuser, error) { return g.openMember(ctx, "") },
		Follow: func(ctx context.Context) error {
			t, err := g.openMember(ctx, "")
			if err != nil {
				return err
			}
			return watchStatus(ctx, ios, t)
		},
	}
	cmd := &cobra.Command{
		Use: "status",
		Example: `  teamctl status
  teamctl status -w
  teamctl status --json --team auth-fix`,
		Short: "Show every member of the team: pane, pid, state, uptime, folder",
		Long: `Show every member of the team: pane, pid, state, uptime, folder.

STATE is working (a Claude Code member whose program runs and is not idle),
running (a plain process's, never idle), idle, stalled (with the line it
stopped at and how long ago), waiting_approval, exited (with its code), failed
(its crash loop, with why), held (its budget spent, or stopped by a person)
or limited (a usage limit, with its reset time): the same words as top and
serve. COST is what a member spent so far as the supervisor read its
transcripts ($1.23, or "1.20M tok, no price" for a model teamctl has no price
for, never a guess), the team's total on the first line. An exited or failed
member's DETAIL ends with the last line its pane printed (last: "...").

On a terminal the table fits its width (the terminal's, else COLUMNS): CWD
gives way first (~, then ~/.../last), then DETAIL is cut with "..."; piped,
every value is whole. Columns line up by what a terminal shows (colour takes
no width, wide CJK and emoji two).

With --watch, redraw it whenever the team's state changes (and every second in
a terminal, so uptimes tick) until Ctrl-C. When the output is not a terminal,
each changed frame is printed after a blank line. A team that goes down stays
shown as down.

--json prints {"team","socket","session","layout","members":[{"name","role",
"pane","pid","state","exit_code","cwd","session_id","restarts","started_at",
...}],"supervisor":{"running","pid"}}; later versions add fields, never
rename them. role is lead, teammate or process; origin is layout, or lead for
a teammate the lead spawned; agent is codex or gemini for a member running
that CLI. A stalled member has "stall" {"pattern","line",
"since","excerpt"}, a failed or held one "reason", an exited or failed one
"last_lines" (the last 10 its pane printed); once its transcripts are read a
Claude Code member has "usage" {"input","output","cache_write","cache_read",
"turns","cost","models","no_price","updated"}, and the top level the team's
total in the same shape.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Watch && opts.JSON {
				return usagef(cmd, "--watch and --json do not go together")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return statusRun(cmd.Context(), opts)
		},
	}
	addJSONFlag(cmd, &opts.JSON, "")
	cmd.Flags().BoolVarP(&opts.Watch, "watch", "w", false, "redraw whenever the team's state changes, until Ctrl-C")
	g.addTeamFlag(cmd, teamFlagUsage)
	return cmd
}

func statusRun(ctx context.Context, opts *statusOptions) error {
	if opts.Watch {
		return opts.Follow(ctx)
	}
	t, err := opts.Open(ctx)
	if err != nil {
		return err
	}
	st, err := t.Status(ctx)
	if err != nil {
		return err
	}
	if opts.JSON {
		// The words top and serve show: a running Claude Code member is working.
		for i := range st.Members {
			st.Members[i].State = st.Members[i].State.Shown(st.Members[i].Role, st.Members[i].Agent)
		}
		return writeJSON(opts.IO, st)
	}
	fmt.Fprint(opts.IO.Out, renderStatus(opts.IO, st, opts.Now()))
	return nil
}
