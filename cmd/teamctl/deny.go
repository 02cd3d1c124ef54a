package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
)

// denyOptions are what `teamctl deny` acts on.
type denyOptions struct {
	IO      *iostreams.IO
	Member  string
	Request string // "" for the member's pending one
	Reason  string // "" for the default one
	// Open opens the team that has the member.
	Open func(ctx context.Context, member string) (denier, error)
}

// denier is what deny needs of a team (a *team.Team).
type denier interface {
	Deny(ctx context.Context, member, requestID, reason string) (string, error)
}

// newDenyCmd makes `teamctl deny`; runF, when not nil, is run in denyRun's
// place (tests of the flags).
func newDenyCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *denyOptions) error) *cobra.Command {
	opts := &denyOptions{IO: ios, Open: func(ctx context.Context, member string) (denier, error) {
		return g.openMember(ctx, member)
	}}
	cmd := &cobra.Command{
		Use: "deny MEMBER",
		Example: `  teamctl deny researcher
  teamctl deny researcher --reason "use the test database"`,
		Short: "Refuse a teammate's permission request; it skips the tool",
		Long: `Refuse a teammate's permission request: Claude Code's permission_response
(subtype error) is written into the teammate's mailbox, and the teammate
skips the tool. Without --request it answers the member's pending request.`,
	}
	cmd.Flags().StringVar(&opts.Request, "request", "", "the request to answer (default: the member's pending one)")
	cmd.Flags().StringVar(&opts.Reason, "reason", "", "why, told to the teammate")
	return oneMember(g, cmd, &opts.Member, opts, nil, runF, denyRun)
}

func denyRun(ctx context.Context, opts *denyOptions) error {
	t, err := opts.Open(ctx, opts.Member)
	if err != nil {
		return err
	}
	id, err := t.Deny(ctx, opts.Member, opts.Request, opts.Reason)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "denied %s's request %s\n", opts.Member, id)
	return nil
}
