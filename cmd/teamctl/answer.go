package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team"
)

func newAnswerCmd(io *iostreams.IO, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "answer MEMBER KEYS...",
		Short: "Answer a stalled member without attaching: send tmux keys (y Enter, Down Enter, …)",
		Example: `  teamctl answer researcher y Enter
  teamctl answer lead Down Enter     # pick the second option of a Claude Code menu`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := g.openFor(cmd, args[0])
			if err != nil {
				return err
			}
			err = t.Answer(cmd.Context(), args[0], args[1:])
			// Keys that went out are a success whatever the record: exit 1 would
			// invite a retry, which would answer twice.
			var notRecorded *team.NotRecordedError
			if err != nil && !errors.As(err, &notRecorded) {
				return err
			}
			fmt.Fprintf(io.Out, "sent %q to %s\n", args[1:], args[0])
			if notRecorded != nil {
				fmt.Fprintf(io.ErrOut, "teamctl: warning: %s\n", textsafe.Lines(notRecorded.Error()))
			}
			return nil
		},
	}
}
