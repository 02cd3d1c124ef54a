package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
)

// restartOptions are what `teamctl restart` acts on.
type restartOptions struct {
	IO     *iostreams.IO
	Member string
	// Open opens the team that has the member.
	Open func(ctx context.Context, member string) (restarter, error)
}

// restarter is what restart needs of a team (a *team.Team).
type restarter interface {
	Restart(ctx context.Context, member string) (int, error)
	State() (*state.Team, error)
}

// newRestartCmd makes `teamctl restart`; runF, when not nil, is run in
// restartRun's place (tests of the flags).
func newRestartCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *restartOptions) error) *cobra.Command {
	opts := &restartOptions{IO: ios, Open: func(ctx context.Context, member string) (restarter, error) {
		return g.openMember(ctx, member)
	}}
	cmd := &cobra.Command{
		Use:   "restart MEMBER",
		Short: "Relaunch a member in its pane, running or not (a failed one starts afresh)",
		Long: `Relaunch a layout member in its own pane with the launch it was started with,
as the team's layout plans it (never the argv and environment state.json
records), as the supervisor does after an exit: the lead resumes its
conversation, a Claude Code teammate gets its prompt in its mailbox again. A
member whose launch the layout no longer gives (the layout changed since up)
is refused: teamctl up --recreate relaunches it as the layout says. A member
that runs is ended first (SIGTERM, 5 s, SIGKILL: two runs of one member would
fight over its Claude Code session); a Claude Code lead also waits, up to
15 s, for Claude Code's lock on its team config to go stale. A failed member
is given a clean slate: its crash-loop window is cleared and its next exits
are restarted again. It counts as a restart, in one count with the
supervisor's (restarts in status --json), and says so, as its restart event
does. Teammates the lead spawned are the lead's to restart.`,
		Example: `  teamctl restart web
  teamctl restart researcher --team auth-fix`,
	}
	return oneMember(g, cmd, &opts.Member, opts, nil, runF, restartRun)
}

func restartRun(ctx context.Context, opts *restartOptions) error {
	t, err := opts.Open(ctx, opts.Member)
	if err != nil {
		return err
	}
	pid, err := t.Restart(ctx, opts.Member)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "restarted %s (pid %d)%s\n", textsafe.Visible(opts.Member), pid, restartCount(t, opts.Member))
	return nil
}

// restartCount is ": restart #N (by a person)", N the member's restarts as
// state.json now has them; "" when the state cannot be read (the restart is
// done all the same).
func restartCount(t restarter, member string) string {
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
