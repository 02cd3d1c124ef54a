package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/atomicfile"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/selfexe"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/team"
)

// initOptions are where `teamctl init` writes its layout, and what kind.
type initOptions struct {
	IO      *iostreams.IO
	Dir     string // the folder it writes teamctl.yaml into: the current one
	StandIn bool
	// Self is the teamctl whose stand-in a --standin layout runs (one that
	// stays, as the demo's: selfexe.Path).
	Self func() (string, error)
	// Worktrees says why the members of layout data, to be file, cannot
	// have worktrees (nil: they can).
	Worktrees func(ctx context.Context, file string, data []byte) error
	Validate  func(ctx context.Context, file string) team.Validation // team.Validate
}

// newInitCmd makes `teamctl init`; runF, when not nil, is run in initRun's
// place (tests of the flags).
func newInitCmd(ios *iostreams.IO, runF func(context.Context, *initOptions) error) *cobra.Command {
	opts := &initOptions{IO: ios, Self: selfexe.Path, Worktrees: worktreesPossible, Validate: team.Validate}
	cmd := &cobra.Command{
		Use: "init",
		Example: `  cd ~/src/app && teamctl init     # ./teamctl.yaml: team app, a lead, alice and bob
  teamctl init --standin            # the same, run by teamctl's stand-in: no Claude Code needed`,
		Short: "Write a commented teamctl.yaml for the repository you are in",
		Long: `Write ./teamctl.yaml: a team named after the current folder, with a lead
and two teammates, alice and bob, each in a git worktree of its own (when
the folder is in a git repository with a commit), the team's env and the
watchdog's defaults, every field commented. A layout file that is here
already (teamctl.yaml, teamctl.yml, .teamctl.yaml, .teamctl.yml) is never
replaced. What it wrote is validated, as teamctl validate does.

With --standin the members run teamctl's stand-in for Claude Code (the
demo's scripted agents): the team comes up without Claude Code or an API
key.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := os.Getwd()
			if err != nil {
				return err
			}
			opts.Dir = dir
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return initRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.StandIn, "standin", false, "the members run teamctl's stand-in for Claude Code (no Claude Code or API key needed)")
	return cmd
}

// initFile is the file init writes, in the current folder.
const initFile = "teamctl.yaml"

func initRun(ctx context.Context, opts *initOptions) error {
	for _, name := range layouts.DefaultFiles {
		if _, err := os.Lstat(filepath.Join(opts.Dir, name)); err == nil {
			return fmt.Errorf("%s is here already: not replaced (edit it, or remove it and run teamctl init again)", name)
		}
	}
	spec := layouts.StarterSpec{Team: layouts.TeamNameFrom(filepath.Base(opts.Dir)), Worktrees: true}
	if opts.StandIn {
		self, err := opts.Self()
		if err != nil {
			return err
		}
		spec.StandIn = self
	}
	path := filepath.Join(opts.Dir, initFile)
	// Worktrees only where they can be made (a git repository with a commit).
	noWorktrees := opts.Worktrees(ctx, path, layouts.Starter(spec))
	if noWorktrees != nil {
		spec.Worktrees = false
	}
	written, err := atomicfile.WriteNew(path, layouts.Starter(spec), 0o644)
	if err != nil {
		return err
	}
	if !written {
		return fmt.Errorf("%s is here already: not replaced (edit it, or remove it and run teamctl init again)", initFile)
	}
	printInit(opts.IO.Out, spec, noWorktrees)
	// Validated as up would take it: a problem in the file is init's own
	// mistake; one of this machine (no Claude Code yet) is for the person.
	v := opts.Validate(ctx, path)
	inFile := false
	for _, p := range v.Problems {
		inFile = inFile || p.Line > 0
		fmt.Fprintln(opts.IO.ErrOut, "note: "+textsafe.Lines(problemLine(p)))
	}
	switch {
	case inFile:
		return fmt.Errorf("%s as written is not valid: a bug of teamctl init's (the problems are above)", initFile)
	case !v.Valid:
		fmt.Fprintf(opts.IO.ErrOut, "note: up needs that first (teamctl doctor checks this machine; teamctl init --standin writes a team that needs no Claude Code)\n")
	}
	return nil
}

// worktreesPossible says why the members of layout data, to be file, cannot
// have their worktrees (the first reason), nil when they can.
func worktreesPossible(ctx context.Context, file string, data []byte) error {
	l, err := layouts.ParseBytes(file, data)
	if err != nil {
		return err
	}
	if errs := team.CheckWorktrees(ctx, l); len(errs) > 0 {
		return errs[0]
	}
	return nil
}
