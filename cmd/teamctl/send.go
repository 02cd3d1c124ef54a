package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
)

func newSendCmd(ios *iostreams.IO, g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use: "send MEMBER TEXT|-",
		Example: `  teamctl send researcher "Look at the token refresh too."
  git diff | teamctl send lead -`,
		Short: "Tell a member something: a teammate through its mailbox, the lead typed into its pane when idle",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := g.openFor(cmd, args[0])
			if err != nil {
				return err
			}
			text := args[1]
			if text == "-" {
				b, err := io.ReadAll(io.LimitReader(ios.In, 1<<20))
				if err != nil {
					return fmt.Errorf("read stdin: %w", err)
				}
				text = strings.TrimRight(string(b), "\n")
			}
			how, err := t.Send(cmd.Context(), args[0], text)
			if err != nil {
				return err
			}
			fmt.Fprintf(ios.Out, "sent to %s: %s\n", args[0], how)
			return nil
		},
	}
	g.addTeamFlag(cmd, teamFlagUsage)
	cmd.ValidArgsFunction = completeMembers(g)
	return cmd
}
