package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team"
)

func newDownCmd(io *iostreams.IO, g *globals) *cobra.Command {
	var timeout time.Duration
	var now bool
	cmd := &cobra.Command{
		Use: "down",
		Example: `  teamctl down
  teamctl down --team auth-fix --timeout 30s
  teamctl down --now                # no shutdown request: SIGTERM at once`,
		Short: "Stop the team: a shutdown request, SIGTERM, a grace period, SIGKILL, then its tmux server",
		Long: `Stop every member of the team and the team's tmux server. Each Claude Code
teammate is first sent Claude Code's own shutdown_request through its mailbox
and given up to half of --timeout (5s at most) to end by itself (--now skips
this); then SIGTERM to each pane's process group still running and SIGKILL to
what is still running after --timeout, the lead last. Worktrees and Claude
Code's files are left alone.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := g.open(cmd)
			if errors.Is(err, team.ErrNoTeamUp) {
				// As `docker compose down`: nothing up is nothing to do, not a failure.
				fmt.Fprintln(io.Out, "no team is up; nothing to stop")
				return nil
			}
			if err != nil {
				return err
			}
			res, err := t.Down(cmd.Context(), team.DownOptions{Timeout: timeout, Now: now, Progress: textsafe.Writer{W: io.ErrOut}})
			name := t.Name
			if res != nil && res.AlreadyDown {
				fmt.Fprintf(io.Out, "team %s is already down (since %s); nothing to stop\n", name, res.StoppedAt.Local().Format(time.DateTime))
				return nil
			}
			if res != nil {
				msg := fmt.Sprintf("team %s is down: %d stopped", name, len(res.Terminated))
				if err != nil {
					msg = fmt.Sprintf("team %s: %d stopped", name, len(res.Terminated))
				}
				if len(res.ShutDown) > 0 {
					msg += fmt.Sprintf(" (%s approved the shutdown request)", textsafe.Visible(strings.Join(res.ShutDown, ", ")))
				}
				if len(res.Killed) > 0 {
					msg += fmt.Sprintf(", %d killed after %s", len(res.Killed), timeout)
				}
				if len(res.Strays) > 0 {
					msg += fmt.Sprintf(", %d stray process(es) ended", len(res.Strays))
				}
				fmt.Fprintln(io.Out, msg)
				for _, w := range res.Warnings {
					fmt.Fprintf(io.ErrOut, "teamctl: warning: %s\n", textsafe.Lines(w))
				}
			}
			if err != nil {
				return fmt.Errorf("down %s: %w", name, err)
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Second, "grace period between SIGTERM and SIGKILL")
	cmd.Flags().BoolVar(&now, "now", false, "skip asking the teammates to shut down: SIGTERM at once")
	g.addTeamFlag(cmd, teamFlagUsage)
	return cmd
}
