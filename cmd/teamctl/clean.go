package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/clean"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
)

func newCleanCmd(io *iostreams.IO, g *globals) *cobra.Command {
	var o clean.Options
	var asJSON bool
	cmd := &cobra.Command{
		Use: "clean [TEAM]",
		Example: `  teamctl clean --dry-run          # what would go, changing nothing
  teamctl clean auth-fix           # one team's leftovers, without asking
  teamctl clean --yes              # every team's, without asking (scripts)
  teamctl clean auth-fix --force   # even worktrees and branches holding work`,
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
worktree with uncommitted changes or untracked files, or a branch with commits
not merged into its base, is refused, saying what would be lost; --force removes
it anyway. A folder git does not know is removed only when empty, even with
--force. What depends on a refused thing (the team's folders and state, which
record it) is kept. A running team only loses its orphaned panes, unless it is
named. With --all, Claude Code's own leftovers too: claude-swarm-<pid> servers of
gone leads, and team folders of dead leads (removed only with --force).

clean prints its plan, acts, and reports; the exit code is 1 when something was
refused. Running it again is harmless.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Team = args[0]
			} else {
				o.Team = g.team
			}
			o.TmuxBin = g.tmuxBin
			printPlan := func(r *clean.Report) {
				if asJSON {
					return
				}
				if len(r.Actions) == 0 {
					fmt.Fprintln(io.Out, "nothing to clean")
					return
				}
				fmt.Fprintln(io.Out, "plan:")
				printActions(io, r, false)
			}
			r, err := clean.Run(cmd.Context(), o, printPlan)
			if err != nil {
				return err
			}
			if asJSON {
				if err := writeJSON(io, r); err != nil {
					return err
				}
			} else {
				for _, n := range r.Notes {
					fmt.Fprintln(io.Out, "note:", n)
				}
				if !o.DryRun && len(r.Actions) > 0 {
					fmt.Fprintln(io.Out, "\nresult:")
					printActions(io, r, true)
				}
				if len(r.Actions) > 0 {
					c := r.Counts()
					summary := fmt.Sprintf("%d done, %d refused, %d kept, %d failed", c[clean.Done], c[clean.Refused], c[clean.Kept], c[clean.Failed])
					if o.DryRun {
						summary = fmt.Sprintf("dry run, nothing changed: %d to do, %d refused, %d kept", c[clean.Planned], c[clean.Refused], c[clean.Kept])
					}
					fmt.Fprintln(io.Out, summary)
				}
			}
			c := r.Counts()
			if c[clean.Refused] > 0 || c[clean.Failed] > 0 {
				return exitError{1}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.All, "all", false, "also Claude Code's own leftovers (swarm servers of gone leads; team folders of dead leads with --force)")
	f.BoolVar(&o.DryRun, "dry-run", false, "print the plan and change nothing")
	f.BoolVar(&o.Force, "force", false, "remove worktrees and branches even when that loses work")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// printActions prints one line per action: step, team, target, and why (plan)
// or what happened (result).
func printActions(io *iostreams.IO, r *clean.Report, results bool) {
	tw := tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
	for _, a := range r.Actions {
		what := a.Why
		switch {
		case results || a.Result != clean.Planned:
			what = a.Result
			if a.Detail != "" {
				what += ": " + a.Detail
			}
			if !results {
				what = a.Why + "; " + what
			}
		case a.Detail != "":
			what += "; " + a.Detail
		}
		// A target may name a pane by the member its option names, which a
		// program in the pane can set: made visible.
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", a.Step, textsafe.Visible(a.Team), textsafe.Visible(a.Target), textsafe.Visible(strings.ReplaceAll(what, "\n", " ")))
	}
	tw.Flush()
}
