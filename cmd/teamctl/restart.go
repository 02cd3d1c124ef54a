package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team"
)

func newRestartCmd(io *iostreams.IO, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "restart MEMBER",
		Short: "Relaunch a member in its pane, running or not (a failed one starts afresh)",
		Long: `Relaunch a layout member in its own pane with the launch it was started with,
as the team's layout plans it (never the argv and environment state.json
records), as the supervisor does after an exit: the lead resumes its
conversation, a Claude Code teammate gets its prompt in its mailbox again. A
member whose launch the layout no longer gives (the layout changed since up)
is refused: teamctl up --recreate relaunches it as the layout says. A failed
member is given a clean slate: its next exits are restarted again.`,
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
			fmt.Fprintf(io.Out, "restarted %s (pid %d)%s\n", textsafe.Visible(args[0]), pid, restartCount(t, args[0]))
			return nil
		},
	}
}

// restartCount is ": restart #N (by a person)", N the member's restarts as
// state.json now has them; "" when the state cannot be read (the restart is
// done all the same).
func restartCount(t *team.Team, member string) string {
	st, err := t.State()
	if err != nil {
		return ""
	}
	m, ok := st.Member(member)
	if !ok {
		return ""
	}
	return fmt.Sprintf(": restart #%d (by a person)", m.Restarts)
}
