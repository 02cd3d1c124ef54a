package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team"
)

// finishOptions are what `teamctl finish` lands and removes.
type finishOptions struct {
	IO      *iostreams.IO
	Members []string
	All     bool
	Yes     bool // stop running members without asking
	// Ask asks a yes/no question; nil: on the terminal (confirm), refused
	// without one.
	Ask   func(ctx context.Context, question string) (bool, error)
	Merge team.MergeOptions
	JSON  bool
	// Open opens the team that has the member ("" for --all: the team).
	Open func(ctx context.Context, member string) (finisher, error)
}

// finisher is what finish needs of a team (a *team.Team).
type finisher interface {
	Finish(ctx context.Context, members []string, all bool, o team.MergeOptions) (*team.FinishResult, error)
	// Running and Stop: a member still running is stopped first, once asked.
	Running(ctx context.Context, members []string, all bool) ([]string, error)
	Stop(ctx context.Context, member string, grace time.Duration) (*team.StopResult, error)
}

// newFinishCmd makes `teamctl finish`; runF, when not nil, is run in
// finishRun's place (tests of the flags).
func newFinishCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *finishOptions) error) *cobra.Command {
	opts := &finishOptions{IO: ios, Open: func(ctx context.Context, member string) (finisher, error) {
		return g.openMember(ctx, member)
	}}
	cmd := &cobra.Command{
		Use:   "finish MEMBER... | --all",
		Short: "Land members' work, then remove their worktrees and branches",
		Long: `Land each member's work as teamctl merge does (same flags, same refusals,
in order, stopping at the first refused), then remove its worktree and the
branch teamctl made for it, by clean's rules: only a worktree where teamctl
puts them and git lists, only of a member that is not running: one that runs
is stopped first as teamctl stop stops it, once you say yes ([y/N] on a
terminal; --yes without asking). Whatever
removing them would lose — files that appeared since the merge, commits the
target does not have (after --squash the member's commits are on no other
branch) — is first kept in a snapshot, said with the teamctl restore command
that brings it back. The member stays in the team; up makes it a new
worktree.

Exit 1 when a member is refused (those before it are finished), 2 on a
usage error.`,
		Example: `  teamctl finish alice bob          # asks to stop them first if they run
  teamctl down && teamctl finish alice bob
  teamctl finish --all --squash --into release`,
	}
	cmd.Flags().BoolVar(&opts.All, "all", false, "every member with a worktree, in the order state.json has them")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "stop members that still run (teamctl stop) without asking")
	addMergeFlags(cmd, &opts.Merge)
	addJSONFlag(cmd, &opts.JSON, "")
	check := func(cmd *cobra.Command, args []string) error {
		if (len(args) == 0) == !opts.All {
			return usagef(cmd, "name the members to finish, or --all (not both)")
		}
		return nil
	}
	return memberList(g, cmd, &opts.Members, opts, check, runF, finishRun)
}

func finishRun(ctx context.Context, opts *finishOptions) error {
	first := ""
	if len(opts.Members) > 0 {
		first = opts.Members[0]
	}
	t, err := opts.Open(ctx, first)
	if err != nil {
		return err
	}
	if err := stopToFinish(ctx, opts, t); err != nil {
		return err
	}
	res, err := t.Finish(ctx, opts.Members, opts.All, opts.Merge)
	if err != nil {
		return err
	}
	if opts.JSON {
		if err := writeJSON(opts.IO, res); err != nil {
			return err
		}
	} else {
		for _, f := range res.Finished {
			printFinished(opts.IO.Out, f)
		}
	}
	return refused(opts.IO, res.Refused, !opts.JSON)
}

// stopToFinish stops the members to finish that still run, as teamctl stop
// does, once the person said yes (or --yes); no is exit 1, nothing done.
func stopToFinish(ctx context.Context, opts *finishOptions, t finisher) error {
	running, err := t.Running(ctx, opts.Members, opts.All)
	if err != nil || len(running) == 0 {
		return err
	}
	names := textsafe.Visible(strings.Join(running, ", "))
	if !opts.Yes {
		ask := opts.Ask
		if ask == nil && opts.IO.InteractiveTTY() {
			ask = func(ctx context.Context, q string) (bool, error) { return confirm(ctx, opts.IO, q) }
		}
		if ask == nil {
			return fmt.Errorf("%s still running: finish removes the worktree of a member that is not running; --yes stops it first (as teamctl stop does), or teamctl stop it yourself", names)
		}
		ok, err := ask(ctx, fmt.Sprintf("%s still running: stop it first (as teamctl stop does)? [y/N] ", names))
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(opts.IO.ErrOut, "teamctl: nothing finished")
			return exitError{1}
		}
	}
	for _, name := range running {
		r, err := t.Stop(ctx, name, team.FinishStopGrace)
		if err != nil {
			return err
		}
		fmt.Fprintln(opts.IO.ErrOut, stopText(r))
	}
	return nil
}
