package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/supervisor"
)

func newAnswerCmd(io *iostreams.IO, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "answer MEMBER KEYS...",
		Short: "Answer a stalled member without attaching: send tmux keys (y Enter, Down Enter, …)",
		Example: `  teamctl answer researcher y Enter
  teamctl answer lead Down Enter     # pick the second option of a Claude Code menu`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			team, err := supervisor.FindTeam(cmd.Context(), g.team, g.tmuxBin)
			if err != nil {
				return err
			}
			if err := supervisor.Answer(cmd.Context(), team, args[0], args[1:], g.tmuxBin); err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "sent %q to %s\n", args[1:], args[0])
			return nil
		},
	}
}
