package main

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/clean"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// cleanOptions are what `teamctl clean` acts on.
type cleanOptions struct {
	IO        *iostreams.IO
	Clean     clean.Options
	JSON, Yes bool
	// Named: TEAM or --team named the team; AllTeams: --all-teams. With
	// neither, clean acts on the team Find finds (as every command finds
	// its team; "" when no team has state: nothing of a team to choose).
	Named, AllTeams bool
	Find            func(ctx context.Context) (string, error)
	// Run plans, shows the plan, asks and cleans (clean.Run).
	Run func(ctx context.Context, o clean.Options, shown func(*clean.Report), confirm func(context.Context, []string) error) (*clean.Report, error)
}

// newCleanCmd makes `teamctl clean`; runF, when not nil, is run in
// cleanRun's place (tests of the flags).
func newCleanCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *cleanOptions) error) *cobra.Command {
	opts := &cleanOptions{IO: ios, Run: clean.Run, Find: func(ctx context.Context) (string, error) {
		if names, err := state.List(); err == nil && len(names) == 0 {
			return "", nil
		}
		return g.find(ctx, "")
	}}
	o := &opts.Clean
	var olderThan string
	cmd := &cobra.Command{
		Use: "clean [TEAM]",
		Example: `  teamctl clean --dry-run          # what would go of this folder's team, changing nothing
  teamctl clean                    # this folder's team: shows the plan, then asks
  teamctl clean auth-fix           # one team's leftovers, without asking
  teamctl clean --all-teams --yes  # every team's, without asking (scripts)
  teamctl clean auth-fix --force   # even worktrees and branches holding work, kept in a snapshot first
  teamctl clean --snapshots --older-than 30d --yes   # this team's snapshots a month old`,
		Short: "Remove what teams left behind: orphaned panes, servers, worktrees, team files",
		Long: `Find what teams left behind and remove it, in an order that strands nothing:
orphaned panes (their processes get SIGTERM, then SIGKILL), orphaned teamctl-*
tmux servers, worktrees (git worktree remove, then prune) and the branches teamctl
made for them, then Claude Code's teams/<team> and tasks/<team> folders, then
teamctl's state of the team.

Only the team's worktrees are removed: ones git lists as linked worktrees and
that are where teamctl (<folder>/<team>/<member>) or Claude Code
(<repo>/.claude/worktrees/<slug>, on a worktree-… branch) puts them; anything
else state.json or Claude Code's team config names is kept, saying why. A
worktree with uncommitted changes or untracked files is refused, saying what
would be lost. A branch with commits not merged into its base is where that
work is: it is kept, named with its count of commits, and the rest of the team
goes (its worktree, if clean, too). A folder git does not know is removed only
when empty, even with --force. What depends on a refused thing (the team's
folders and state, which record it) is kept. A running team only loses its
orphaned panes, unless it is named. With --all, Claude Code's own leftovers
too: claude-swarm-<pid> servers of gone leads, and team folders of dead leads
(removed only with --force).

--force means stop asking, never lose it: before a worktree holding work or a
branch with commits not merged goes, its work (commits, staged, unstaged and
untracked files) is kept as a snapshot, a commit under
refs/teamctl/snapshots/<team>/<member>/<time> in its repository; the report
says where, and teamctl restore brings it back (teamctl snapshots lists them).
Files over 100 MiB are left out, and named. clean never removes a snapshot,
except with --snapshots, which removes snapshots (of TEAM, or all; with
--older-than only those older than that) and nothing else.

clean prints its plan, acts, and reports; the exit code is 1 when something was
refused. Running it again is harmless.

Without TEAM, clean acts on the team you are in, found as every command finds
its team (see teamctl --help; a running one then loses only its orphaned
panes), and --all-teams on every team. Either way, on a terminal it shows its
plan first — what it will remove, and what it will refuse or keep and why, as
--dry-run shows it — and asks (--yes does not ask). When it is not on a
terminal it never asks: it needs --yes or a team (exit 2 otherwise). A dry
run, or a plan with nothing to do, needs neither.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cleanArgs(cmd, g, o, &opts.Named, opts.AllTeams, args, olderThan); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return cleanRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.All, "all", false, "also Claude Code's own leftovers (swarm servers of gone leads; team folders of dead leads with --force)")
	f.BoolVar(&o.DryRun, "dry-run", false, "print the plan and change nothing")
	f.BoolVar(&o.Force, "force", false, "remove worktrees and branches holding work too, once a snapshot holds it")
	f.BoolVar(&o.Snapshots, "snapshots", false, "remove snapshots (of TEAM, or every team's) instead, and nothing else")
	f.StringVar(&olderThan, "older-than", "", "with --snapshots: only those older than this (30d, 12h)")
	addJSONFlag(cmd, &opts.JSON, "print the report as JSON")
	f.BoolVarP(&opts.Yes, "yes", "y", false, "do not ask before cleaning a team not named, or every team (needed without a terminal, unless a team is named)")
	f.BoolVar(&opts.AllTeams, "all-teams", false, "clean every team, not only the team you are in")
	g.addTeamFlag(cmd, "the team to clean, as the TEAM argument")
	cmd.ValidArgsFunction = completeTeams
	return cmd
}

func cleanRun(ctx context.Context, opts *cleanOptions) error {
	o := opts.Clean
	if os.Getenv("TEAMCTL_TRACE") != "" {
		// Each git command with its wall and processor time (bench/clean -v).
		worktrees.SetTrace(opts.IO.ErrOut)
		defer worktrees.SetTrace(nil)
	}
	if !opts.Named && !opts.AllTeams && opts.Find != nil {
		name, err := opts.Find(ctx)
		if err != nil {
			return fmt.Errorf("%w; or clean every team with --all-teams", err)
		}
		o.Team, o.Found = name, name != ""
	}
	shown := func(r *clean.Report) {
		if !opts.JSON {
			printPlan(opts.IO, r)
		}
	}
	if opts.Yes || opts.Named || o.DryRun {
		r, err := opts.Run(ctx, o, shown, nil)
		if err != nil {
			return err
		}
		return cleaned(opts, r, true)
	}
	// Asked first: the plan shown is a dry run's, so that it says what will
	// be refused or kept, and why, before the question (a run for real finds
	// a worktree's untracked files only when git refuses to remove it).
	dry := o
	dry.DryRun = true
	plan, err := opts.Run(ctx, dry, nil, nil)
	if err != nil {
		return err
	}
	teams := plannedTeams(plan)
	if len(teams) == 0 { // nothing to do: nothing to ask
		shown(plan)
		return cleaned(opts, plan, true)
	}
	if !opts.JSON {
		printPlan(opts.IO, plan)
		printNotes(opts.IO, plan)
	}
	if err := askToClean(ctx, opts.IO, teams, o.Found); err != nil {
		return err
	}
	r, err := opts.Run(ctx, o, nil, nil)
	if err != nil {
		return err
	}
	return cleaned(opts, r, false)
}

// cleaned prints what clean did (its notes too unless the plan had them
// already) and is its exit code.
func cleaned(opts *cleanOptions, r *clean.Report, notes bool) error {
	if opts.JSON {
		if err := writeJSON(opts.IO, r); err != nil {
			return err
		}
	} else {
		if notes {
			printNotes(opts.IO, r)
		}
		printCleaned(opts.IO, r)
	}
	if r.Incomplete() {
		return exitError{1}
	}
	return nil
}

// plannedTeams lists, in plan order, the teams whose leftovers the plan
// would remove.
func plannedTeams(r *clean.Report) []string {
	var teams []string
	for _, a := range r.Actions {
		if a.Result == clean.Planned && !slices.Contains(teams, a.Team) {
			teams = append(teams, a.Team)
		}
	}
	return teams
}
