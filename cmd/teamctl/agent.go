package main

import (
	"context"
	"fmt"
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/agentstart"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/selfexe"
)

// agentOptions are what `teamctl agent` starts.
type agentOptions struct {
	IO   *iostreams.IO
	Kind string
	Argv []string // the agent CLI's, its program an absolute path
}

// newAgentCmd is what a Codex or Gemini member's pane runs (up launches it
// so): it readies the member's own home folder and execs the CLI in its
// place (the pane's process stays the CLI's). runF, when not nil, is run in
// agentRun's place (tests).
func newAgentCmd(ios *iostreams.IO, runF func(context.Context, *agentOptions) error) *cobra.Command {
	opts := &agentOptions{IO: ios}
	return &cobra.Command{
		Use:     "agent KIND -- PROGRAM [ARG...]",
		Example: `  TEAMCTL_TEAM=mixed TEAMCTL_MEMBER=rev teamctl agent codex -- /usr/bin/codex --cd . -a on-request`,
		Short:   "Start a Codex or Gemini member in its pane (run by up, not by people)",
		Hidden:  true,
		Args:    cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 1 {
				return usagef(cmd, "agent KIND -- PROGRAM [ARG...]")
			}
			opts.Kind, opts.Argv = args[0], args[1:]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return agentRun(cmd.Context(), opts)
		},
	}
}

func agentRun(_ context.Context, opts *agentOptions) error {
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	// The CLI tells this teamctl of its turn ends (its hooks): the one that
	// stays, never a go run binary.
	self, err := selfexe.Path()
	if err != nil {
		return err
	}
	env, err := agentstart.Ready(opts.Kind, os.Getenv("TEAMCTL_TEAM"), os.Getenv("TEAMCTL_MEMBER"), dir, self, os.Environ())
	if err != nil {
		return err
	}
	err = syscall.Exec(opts.Argv[0], opts.Argv, env)
	return fmt.Errorf("start %s: %w", opts.Argv[0], err)
}
