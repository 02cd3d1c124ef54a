package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
)

// sendOptions are what `teamctl send` sends, and to whom.
type sendOptions struct {
	IO     *iostreams.IO
	Member string
	Text   string // "-": standard input's
	// Open opens the team that has the member.
	Open func(ctx context.Context, member string) (sender, error)
}

// sender is what send needs of a team (a *team.Team).
type sender interface {
	Send(ctx context.Context, member, text string) (string, error)
}

// newSendCmd makes `teamctl send`; runF, when not nil, is run in sendRun's
// place (tests of the flags).
func newSendCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *sendOptions) error) *cobra.Command {
	opts := &sendOptions{IO: ios, Open: func(ctx context.Context, member string) (sender, error) {
		return g.openMember(ctx, member)
	}}
	cmd := &cobra.Command{
		Use: "send MEMBER TEXT|-",
		Example: `  teamctl send researcher "Look at the token refresh too."
  git diff | teamctl send lead -`,
		Short: "Tell a member something: a teammate through its mailbox, the lead typed into its pane when idle",
		Long: `Tell a member something (TEXT, or - for standard input). A teammate finds it
in its mailbox as a message from team-lead (a new turn); the lead gets it
typed into its pane by the supervisor once it is idle (a lead that spawned no
teammates does not read its mailbox), on one line: each newline or tab is
typed as a space, since a newline would submit it early. A Codex or Gemini
member gets it typed into its input line once it shows one; sent by the lead
(its Bash tool running teamctl send), that member's answer at the end of its
next turn is typed into the lead the same way, once ("[NAME (codex) answers
your teamctl send] …"): a Claude Code lead cannot message such a member
with its own SendMessage.

A message is text: one holding any other control character (an escape
sequence such as shift-tab's \x1b[Z, ^C, ^U) is refused, naming the
character, its line and column, and nothing is sent. A long message arrives
whole: text over 16 KiB is typed through a tmux paste buffer of its own, not
on send-keys' command line; one over 1 MiB is refused (exit 1, saying its
size). A text the supervisor could not type is said in a notify event, never
dropped unsaid.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Member, opts.Text = args[0], args[1]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return sendRun(cmd.Context(), opts)
		},
	}
	g.addTeamFlag(cmd, teamFlagUsage)
	cmd.ValidArgsFunction = completeMembers(g)
	return cmd
}

func sendRun(ctx context.Context, opts *sendOptions) error {
	t, err := opts.Open(ctx, opts.Member)
	if err != nil {
		return err
	}
	text := opts.Text
	if text == "-" {
		b, err := io.ReadAll(io.LimitReader(opts.IO.In, 1<<20))
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		text = strings.TrimRight(string(b), "\n")
	}
	how, err := t.Send(ctx, opts.Member, text)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "sent to %s: %s\n", opts.Member, how)
	return nil
}
