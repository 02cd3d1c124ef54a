package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/demo"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/selfexe"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/team"
)

// demoOptions are what `teamctl demo` acts on.
type demoOptions struct {
	IO       *iostreams.IO
	NoAttach bool
	// Up brings the demo team up (demo.Prepare, then up's own work) and
	// returns its layout.
	Up func(ctx context.Context) (*layouts.Layout, error)
	// Attach steps into member's pane of the team (attach's own run).
	Attach func(ctx context.Context, team, member string) error
}

// newDemoCmd makes `teamctl demo`; runF, when not nil, is run in demoRun's
// place (tests of the flags).
func newDemoCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *demoOptions) error) *cobra.Command {
	opts := &demoOptions{IO: ios, Attach: func(ctx context.Context, name, member string) error {
		return attachRun(ctx, &attachOptions{IO: ios, Member: member, Exec: execAttach(ios), Open: func(ctx context.Context, _ string) (string, attacher, error) {
			t, err := team.Open(ctx, name, g.tmuxBin)
			return name, t, err
		}})
	}}
	cmd := &cobra.Command{
		Use: "demo",
		Example: `  teamctl demo
  teamctl demo --no-attach && teamctl status --team demo`,
		Short: "Bring up a small demo team of stand-in agents (no Claude Code needed) and attach to its lead",
		Long: `Bring up a small team of teamctl's stand-in agents, with no Claude Code or API
key needed, and attach to its lead: a question on screen to answer, a
permission request to approve or deny, a busy teammate.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return demoRun(cmd.Context(), opts)
		},
	}
	opts.Up = func(context.Context) (*layouts.Layout, error) {
		// The demo's agents are this teamctl: a path of it that stays.
		self, err := selfexe.Path()
		if err != nil {
			return nil, err
		}
		l, err := demo.Prepare(self)
		if err != nil {
			return nil, err
		}
		return l, upLayout(cmd, ios, g, l, &upOptions{configWait: 5 * time.Second}, "")
	}
	cmd.Flags().BoolVar(&opts.NoAttach, "no-attach", false, "bring the demo team up without attaching")
	return cmd
}

func demoRun(ctx context.Context, opts *demoOptions) error {
	l, err := opts.Up(ctx)
	if err != nil {
		return err
	}
	// What the demo's teammates wait for, and the keys of top that answer it.
	keys := "(y/n answers a question on screen, a/d approves or denies a permission request)"
	if opts.NoAttach || !opts.IO.InteractiveTTY() {
		fmt.Fprintf(opts.IO.Out, "\nNot attaching (no terminal). Watch and answer the whole team with: teamctl top --team %s %s\nStep in with: teamctl attach lead --team %s\nStop it with: teamctl down --team %s\n", l.Team, keys, l.Team, l.Team)
		return nil
	}
	fmt.Fprintf(opts.IO.Out, "\nAttaching to the lead; detach with the tmux prefix then d. Then watch and answer the whole team with: teamctl top --team %s %s\nStop the demo with: teamctl down --team %s\n", l.Team, keys, l.Team)
	return opts.Attach(ctx, l.Team, l.Lead.Name)
}
