package main

import (
	"errors"
	"fmt"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/team"
	"github.com/teamctl/teamctl/tmux"
)

func newAttachCmd(io *iostreams.IO, g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use: "attach MEMBER",
		Example: `  teamctl attach lead
  teamctl attach researcher --team auth-fix`,
		Short: "Step into a member's pane (detach with the tmux prefix, then d)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := g.openFor(cmd, args[0])
			if err != nil {
				return err
			}
			return attach(cmd, io, t, args[0])
		},
	}
	g.addTeamFlag(cmd, teamFlagUsage)
	cmd.ValidArgsFunction = completeMembers(g)
	return cmd
}

func attach(cmd *cobra.Command, io *iostreams.IO, t *team.Team, member string) error {
	a, err := t.Attach(cmd.Context(), member)
	if err != nil {
		return err
	}
	// Checked after the member (a wrong name is said first), in words rather
	// than tmux's "open terminal failed: not a terminal".
	if !io.InteractiveTTY() {
		return fmt.Errorf("attach needs a terminal, and its standard input or output is not one here (a pipe, a file, a script): run it from a terminal; `teamctl status --team %s` shows what %s is doing without one", t.Name, member)
	}
	hint := ""
	if tmux.Nested() {
		hint = fmt.Sprintf("teamctl: you are inside tmux, so this opens a nested client: detach it with %s %s d (the first %s goes to the outer tmux)", a.Prefix, a.Prefix, a.Prefix)
		// Before attaching, for the terminal's scrollback, and on tmux's status
		// line, which is where it is seen (and which tmux cannot discard).
		fmt.Fprintln(io.ErrOut, hint)
	}
	c := a.Cmd(cmd.Context(), hint)
	c.Stdin, c.Stdout, c.Stderr = io.In, io.Out, io.ErrOut
	if err := c.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return exitError{ee.ExitCode()}
		}
		return fmt.Errorf("attach to %s: %w", member, err)
	}
	return nil
}
