package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/relay"
	"github.com/teamctl/teamctl/state"
)

// relayOptions are the other host's side of a team's relay.
type relayOptions struct {
	IO         *iostreams.IO
	Team       string
	ClaudeTeam string
	Remove     bool // remove what the relay kept here, and end
}

// newRelayCmd is what a team's supervisor runs on another host, over ssh,
// where members of the team run (package relay): it speaks the relay's
// frames on stdin and stdout. runF, when not nil, is run in relayRun's
// place (tests).
func newRelayCmd(ios *iostreams.IO, runF func(context.Context, *relayOptions) error) *cobra.Command {
	opts := &relayOptions{IO: ios}
	cmd := &cobra.Command{
		Use:     "relay --team TEAM --claude-team NAME",
		Example: `  ssh gpu1 ~/.local/state/teamctl/.bin/teamctl-0123abcd relay --team train --claude-team session-0123abcd`,
		Short:   "Carry a team's files to and from another host (run by the supervisor over ssh, not by people)",
		Hidden:  true,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return relayRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Team, "team", "", "teamctl's team")
	cmd.Flags().StringVar(&opts.ClaudeTeam, "claude-team", "", "the lead's Claude Code team")
	cmd.Flags().BoolVar(&opts.Remove, "remove", false, "remove the team's files the relay kept on this host (clean)")
	return cmd
}

func relayRun(ctx context.Context, o *relayOptions) error {
	if !state.ValidTeamName(o.Team) || !claudecode.ValidName(o.ClaudeTeam) {
		return fmt.Errorf("relay: --team %q and --claude-team %q must be a team's names", o.Team, o.ClaudeTeam)
	}
	dir, err := claudecode.ConfigDir()
	if err != nil {
		return err
	}
	if o.Remove {
		// Only a folder a relay marked is the team's here; then Claude
		// Code's copies of the team's folders are the relay's too.
		teams, err := state.RemoveRelayed(o.Team)
		if err != nil || !slices.Contains(teams, o.ClaudeTeam) {
			return err // not the relay's: left
		}
		return claudecode.RemoveTeamCopy(dir, o.ClaudeTeam)
	}
	// The members' hooks here record into the team's folder on this host,
	// which holds no team of this host's: the relay's mark says whose it is.
	if err := state.MarkRelayed(o.Team, o.ClaudeTeam); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return relay.Run(ctx, os.Stdin, os.Stdout, relay.Options{ConfigDir: dir, ClaudeTeam: o.ClaudeTeam, Team: o.Team,
		Log: func(msg string, err error) { fmt.Fprintf(o.IO.ErrOut, "teamctl relay: %s: %v\n", msg, err) }})
}
