package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
)

// approveOptions are what `teamctl approve` acts on.
type approveOptions struct {
	IO      *iostreams.IO
	Member  string
	Request string // "" for the member's pending one
	// Open opens the team that has the member.
	Open func(ctx context.Context, member string) (approver, error)
}

// approver is what approve needs of a team (a *team.Team).
type approver interface {
	Approve(ctx context.Context, member, requestID string) (string, error)
}

// newApproveCmd makes `teamctl approve`; runF, when not nil, is run in
// approveRun's place (tests of the flags).
func newApproveCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *approveOptions) error) *cobra.Command {
	opts := &approveOptions{IO: ios, Open: func(ctx context.Context, member string) (approver, error) {
		return g.openMember(ctx, member)
	}}
	cmd := &cobra.Command{
		Use: "approve MEMBER",
		Example: `  teamctl approve researcher
  teamctl approve researcher --request perm-123 --team auth-fix`,
		Short: "Let a teammate run the tool it asked the lead about (its permission request)",
		Long: `Let a teammate run the tool it asked the lead about: Claude Code's
permission_response (success) is written into the teammate's mailbox, as the
lead would answer it. Without --request it answers the member's pending
request.`,
	}
	cmd.Flags().StringVar(&opts.Request, "request", "", "the request to answer (default: the member's pending one)")
	return oneMember(g, cmd, &opts.Member, opts, nil, runF, approveRun)
}

func approveRun(ctx context.Context, opts *approveOptions) error {
	t, err := opts.Open(ctx, opts.Member)
	if err != nil {
		return err
	}
	id, err := t.Approve(ctx, opts.Member, opts.Request)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "approved %s's request %s\n", opts.Member, id)
	return nil
}
