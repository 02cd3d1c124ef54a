package main

import (
	"context"

	"github.com/spf13/cobra"
)

// oneMember gives cmd the shape of every command that acts on one member,
// `teamctl VERB MEMBER [--team T]`, written once: one argument, the member
// (into *member), completed from the team's members; --team; then check
// (nil: none) and runF in run's place when set (tests of the flags).
func oneMember[O any](g *globals, cmd *cobra.Command, member *string, opts *O, check func(*cobra.Command) error, runF, run func(context.Context, *O) error) *cobra.Command {
	cmd.Args = cobra.ExactArgs(1)
	var members []string
	one := func(cmd *cobra.Command, args []string) error {
		*member = args[0]
		if check != nil {
			return check(cmd)
		}
		return nil
	}
	return memberList(g, cmd, &members, opts, one, runF, run)
}

// memberList gives cmd the shape of every command that acts on a list of
// members, `teamctl VERB MEMBER... [--team T]`, written once: the arguments
// (into *members), completed from the team's members; --team; then check
// (nil: none) and runF in run's place when set (tests of the flags).
func memberList[O any](g *globals, cmd *cobra.Command, members *[]string, opts *O, check func(*cobra.Command, []string) error, runF, run func(context.Context, *O) error) *cobra.Command {
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if check != nil {
			if err := check(cmd, args); err != nil {
				return err
			}
		}
		*members = args
		if runF != nil {
			return runF(cmd.Context(), opts)
		}
		return run(cmd.Context(), opts)
	}
	g.addTeamFlag(cmd, teamFlagUsage)
	cmd.ValidArgsFunction = completeMembers(g)
	return cmd
}
