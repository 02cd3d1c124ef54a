package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/state"
)

// resumeMemberOptions are what `teamctl resume-member` acts on.
type resumeMemberOptions struct {
	IO     *iostreams.IO
	Member string
	// Open opens the team that has the member.
	Open func(ctx context.Context, member string) (releaser, error)
}

// releaser is what resume-member needs of a team (a *team.Team).
type releaser interface {
	Release(ctx context.Context, member string) (state.Hold, error)
}

// newResumeMemberCmd makes `teamctl resume-member`; runF, when not nil, is
// run in resumeMemberRun's place (tests of the flags).
func newResumeMemberCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *resumeMemberOptions) error) *cobra.Command {
	opts := &resumeMemberOptions{IO: ios, Open: func(ctx context.Context, member string) (releaser, error) {
		return g.openMember(ctx, member)
	}}
	cmd := &cobra.Command{
		Use:   "resume-member MEMBER",
		Short: "Let a member go that its budget held (state held)",
		Long: `Let a member go that the supervisor held when it spent its budget (the
layout's budget: with action interrupt or stop; status shows it held). Held,
nothing of teamctl's restarted it or typed into it; released, an interrupted
member may be typed into again (the lead gets the notes that waited), and a
stopped one is started again, its conversation resumed (a released event,
which the supervisor acts on; with no supervisor running, the hold is taken
out of live.json here). A member not held is refused (exit 1). The budget it spent is
not acted on again: raise it in the layout (a new budget is a new threshold)
and run teamctl up to have it act again. top's R key does the same.`,
		Example: `  teamctl resume-member lead
  teamctl resume-member researcher --team auth-fix`,
	}
	return oneMember(g, cmd, &opts.Member, opts, nil, runF, resumeMemberRun)
}

func resumeMemberRun(ctx context.Context, opts *resumeMemberOptions) error {
	t, err := opts.Open(ctx, opts.Member)
	if err != nil {
		return err
	}
	h, err := t.Release(ctx, opts.Member)
	if err != nil {
		return err
	}
	how := "it may be typed into again"
	if h.Stopped {
		how = "it is started again, its conversation resumed"
	}
	fmt.Fprintf(opts.IO.Out, "released %s, held since %s (%s): %s\n", textsafe.Visible(opts.Member),
		h.Since.Local().Format("15:04:05"), textsafe.Visible(h.Reason), how)
	return nil
}
