package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/team"
)

// attachOptions are what `teamctl attach` acts on.
type attachOptions struct {
	IO     *iostreams.IO
	Member string
	// Open opens the team that has the member, and says its name.
	Open func(ctx context.Context, member string) (string, attacher, error)
	// Exec runs a's command on this terminal until the person detaches,
	// message on tmux's status line.
	Exec func(ctx context.Context, a *team.Attachment, message string) error
}

// attacher is what attach needs of a team (a *team.Team).
type attacher interface {
	Attach(ctx context.Context, member string) (*team.Attachment, error)
}

// newAttachCmd makes `teamctl attach`; runF, when not nil, is run in
// attachRun's place (tests of the flags).
func newAttachCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *attachOptions) error) *cobra.Command {
	opts := &attachOptions{IO: ios, Exec: execAttach(ios), Open: func(ctx context.Context, member string) (string, attacher, error) {
		t, err := g.openMember(ctx, member)
		if err != nil {
			return "", nil, err
		}
		return t.Name, t, nil
	}}
	cmd := &cobra.Command{
		Use: "attach MEMBER",
		Example: `  teamctl attach lead
  teamctl attach researcher --team auth-fix`,
		Short: "Step into a member's pane (detach with the tmux prefix, then d)",
		Long: `Select the member's pane and attach to the team's tmux server until you
detach. Inside another tmux it nests, and says how to detach (C-b C-b d) on
stderr and, once attached, on tmux's status line for 5 s. It needs a
terminal, and says so without one (exit 1).`,
	}
	return oneMember(g, cmd, &opts.Member, opts, nil, runF, attachRun)
}

func attachRun(ctx context.Context, opts *attachOptions) error {
	name, t, err := opts.Open(ctx, opts.Member)
	if err != nil {
		return err
	}
	a, err := t.Attach(ctx, opts.Member)
	if err != nil {
		return err
	}
	// Checked after the member (a wrong name is said first), in words rather
	// than tmux's "open terminal failed: not a terminal".
	if !opts.IO.InteractiveTTY() {
		return fmt.Errorf("attach needs a terminal, and its standard input or output is not one here (a pipe, a file, a script): run it from a terminal; `teamctl status --team %s` shows what %s is doing without one", name, opts.Member)
	}
	hint := nestedHint(opts.IO, a.Prefix)
	var ee *exec.ExitError
	switch err := opts.Exec(ctx, a, hint); {
	case errors.As(err, &ee):
		return exitError{ee.ExitCode()}
	case err != nil:
		return fmt.Errorf("attach to %s: %w", opts.Member, err)
	}
	return nil
}

// execAttach runs an attachment's command on the terminal of ios.
func execAttach(ios *iostreams.IO) func(context.Context, *team.Attachment, string) error {
	return func(ctx context.Context, a *team.Attachment, message string) error {
		c := a.Cmd(ctx, message)
		c.Stdin, c.Stdout, c.Stderr = ios.In, ios.Out, ios.ErrOut
		return c.Run()
	}
}
