package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
)

func newApproveCmd(io *iostreams.IO, g *globals) *cobra.Command {
	var request string
	cmd := &cobra.Command{
		Use: "approve MEMBER",
		Example: `  teamctl approve researcher
  teamctl approve researcher --request perm-123 --team auth-fix`,
		Short: "Let a teammate run the tool it asked the lead about (its permission request)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := g.openFor(cmd, args[0])
			if err != nil {
				return err
			}
			id, err := t.Approve(cmd.Context(), args[0], request)
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "approved %s's request %s\n", args[0], id)
			return nil
		},
	}
	cmd.Flags().StringVar(&request, "request", "", "the request to answer (default: the member's pending one)")
	g.addTeamFlag(cmd, teamFlagUsage)
	cmd.ValidArgsFunction = completeMembers(g)
	return cmd
}

func newDenyCmd(io *iostreams.IO, g *globals) *cobra.Command {
	var request, reason string
	cmd := &cobra.Command{
		Use: "deny MEMBER",
		Example: `  teamctl deny researcher
  teamctl deny researcher --reason "use the test database"`,
		Short: "Refuse a teammate's permission request; it skips the tool",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := g.openFor(cmd, args[0])
			if err != nil {
				return err
			}
			id, err := t.Deny(cmd.Context(), args[0], request, reason)
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "denied %s's request %s\n", args[0], id)
			return nil
		},
	}
	cmd.Flags().StringVar(&request, "request", "", "the request to answer (default: the member's pending one)")
	cmd.Flags().StringVar(&reason, "reason", "", "why, told to the teammate")
	g.addTeamFlag(cmd, teamFlagUsage)
	cmd.ValidArgsFunction = completeMembers(g)
	return cmd
}
