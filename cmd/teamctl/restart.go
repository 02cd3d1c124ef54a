package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
)

func newRestartCmd(io *iostreams.IO, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "restart MEMBER",
		Short: "Relaunch a member in its pane, running or not (a failed one starts afresh)",
		Long: `Relaunch a layout member in its own pane with the argv, environment and folder
it was started with, as the supervisor does after an exit: the lead resumes its
conversation, a Claude Code teammate gets its prompt in its mailbox again. A
failed member is given a clean slate: its next exits are restarted again.`,
		Example: `  teamctl restart web
  teamctl restart researcher --team auth-fix`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := g.openFor(cmd, args[0])
			if err != nil {
				return err
			}
			pid, err := t.Restart(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "restarted %s (pid %d)\n", args[0], pid)
			return nil
		},
	}
}
