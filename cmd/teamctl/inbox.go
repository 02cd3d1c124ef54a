package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
)

// inboxOptions are what `teamctl inbox` lists.
type inboxOptions struct {
	IO     *iostreams.IO
	Member string
	JSON   bool
	// Open opens the team that has the member.
	Open func(ctx context.Context, member string) (inboxReader, error)
}

// inboxReader is what inbox needs of a team (a *team.Team).
type inboxReader interface {
	Inbox(member string) ([]claudecode.Message, error)
}

// newInboxCmd makes `teamctl inbox`; runF, when not nil, is run in
// inboxRun's place (tests of the flags).
func newInboxCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *inboxOptions) error) *cobra.Command {
	opts := &inboxOptions{IO: ios, Open: func(ctx context.Context, member string) (inboxReader, error) {
		return g.openMember(ctx, member)
	}}
	cmd := &cobra.Command{
		Use: "inbox MEMBER",
		Example: `  teamctl inbox lead
  teamctl inbox researcher --json --team auth-fix`,
		Short: "List a member's Claude Code mailbox (`lead` for the lead's, where teammates write)",
		Long: `List a member's Claude Code mailbox, oldest first: when each message was
written, who wrote it, whether it was read, and what it says (its summary, else
its text). Claude Code's own messages (permission requests and answers, idle
notifications, shutdowns) are shown by their type and what matters in them.
The lead's mailbox is the one teammates write to. An empty one says "no
messages for MEMBER"; --json prints the messages as they are in the mailbox
([] for none). A plain process has no mailbox: it says so (exit 1).`,
	}
	addJSONFlag(cmd, &opts.JSON, "")
	return oneMember(g, cmd, &opts.Member, opts, nil, runF, inboxRun)
}

func inboxRun(ctx context.Context, opts *inboxOptions) error {
	t, err := opts.Open(ctx, opts.Member)
	if err != nil {
		return err
	}
	msgs, err := t.Inbox(opts.Member)
	if err != nil {
		return err
	}
	if opts.JSON {
		if msgs == nil {
			msgs = []claudecode.Message{} // [], not null
		}
		return writeJSON(opts.IO, msgs)
	}
	if len(msgs) == 0 {
		fmt.Fprintf(opts.IO.Out, "no messages for %s\n", textsafe.Visible(opts.Member))
		return nil
	}
	fmt.Fprint(opts.IO.Out, renderInbox(msgs, opts.IO.Width()))
	return nil
}
