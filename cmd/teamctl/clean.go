package main

import (
	"bufio"
	"context"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/clean"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
)

func newCleanCmd(io *iostreams.IO, g *globals) *cobra.Command {
	var o clean.Options
	var asJSON, yes bool
	var olderThan string
	cmd := &cobra.Command{
		Use: "clean [TEAM]",
		Example: `  teamctl clean --dry-run          # what would go, changing nothing
  teamctl clean auth-fix           # one team's leftovers, without asking
  teamctl clean --yes              # every team's, without asking (scripts)
  teamctl clean auth-fix --force   # even worktrees and branches holding work, kept in a snapshot first
  teamctl clean --snapshots --older-than 30d --yes   # snapshots a month old`,
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

Without a team, clean acts on every team, so on a terminal it lists the teams
its plan touches and asks first (--yes does not ask). When it is not on a
terminal it never asks: it needs --yes or a team (exit 2 otherwise). A dry run,
or a plan with nothing to do, needs neither.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if g.team != "" && g.team != args[0] {
					return usagef(cmd, "TEAM %s and --team %s name two teams: name one", args[0], g.team)
				}
				o.Team = args[0]
			} else {
				o.Team = g.team
			}
			o.TmuxBin = g.tmuxBin
			switch {
			case olderThan != "" && !o.Snapshots:
				return usagef(cmd, "--older-than goes with --snapshots")
			case o.Snapshots && (o.Force || o.All):
				return usagef(cmd, "--snapshots removes snapshots only: it takes no --force or --all")
			case olderThan != "":
				d, err := parseAge(olderThan)
				if err != nil {
					return usagef(cmd, "--older-than %q: %v", olderThan, err)
				}
				o.OlderThan = d
			}
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
			r, err := clean.Plan(cmd.Context(), o)
			if err != nil {
				return err
			}
			printPlan(r)
			if teams := planTeams(r); !o.DryRun && o.Team == "" && !yes && len(teams) > 0 {
				if !io.InteractiveTTY() {
					return usagef(cmd, "clean without a team acts on every team its plan touches (%s), and there is no terminal to ask on: pass --yes, or name a team (teamctl clean TEAM); --dry-run shows the plan", strings.Join(teams, ", "))
				}
				ok, err := confirm(cmd.Context(), io, fmt.Sprintf("clean would act on these teams: %s\nremove these? [y/N] ", strings.Join(teams, ", ")))
				if err != nil {
					return err
				}
				if !ok {
					fmt.Fprintln(io.ErrOut, "teamctl: nothing removed")
					return exitError{1}
				}
			}
			if !o.DryRun {
				clean.Execute(cmd.Context(), r)
			}
			if asJSON {
				if err := writeJSON(io, r); err != nil {
					return err
				}
			} else {
				for _, n := range r.Notes {
					fmt.Fprintln(io.Out, "note:", textsafe.Visible(n))
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
					if n := c[clean.KeptBranch]; n > 0 {
						summary += fmt.Sprintf("; %d branch(es) with work kept", n)
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
	f.BoolVar(&o.Force, "force", false, "remove worktrees and branches holding work too, once a snapshot holds it")
	f.BoolVar(&o.Snapshots, "snapshots", false, "remove snapshots (of TEAM, or every team's) instead, and nothing else")
	f.StringVar(&olderThan, "older-than", "", "with --snapshots: only those older than this (30d, 12h)")
	addJSONFlag(cmd, &asJSON, "print the report as JSON")
	f.BoolVarP(&yes, "yes", "y", false, "do not ask before cleaning every team (needed without a terminal, unless a team is named)")
	g.addTeamFlag(cmd, "the team to clean, as the TEAM argument")
	cmd.ValidArgsFunction = completeTeams
	return cmd
}

// planTeams lists, in plan order, the teams whose leftovers the plan would
// remove (what is refused or kept already is not asked about).
func planTeams(r *clean.Report) []string {
	var teams []string
	for _, a := range r.Actions {
		if a.Result == clean.Planned && !slices.Contains(teams, a.Team) {
			teams = append(teams, a.Team)
		}
	}
	return teams
}

// confirm asks question on stderr and reads the answer from stdin: yes only
// for y or yes. Ctrl-C (ctx's end) while waiting is a no.
func confirm(ctx context.Context, io *iostreams.IO, question string) (bool, error) {
	fmt.Fprint(io.ErrOut, textsafe.Lines(question))
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(io.In).ReadString('\n')
		answer <- line
	}()
	select {
	case line := <-answer:
		a := strings.ToLower(strings.TrimSpace(line))
		return a == "y" || a == "yes", nil
	case <-ctx.Done():
		fmt.Fprintln(io.ErrOut)
		return false, nil
	}
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
			if a.Result == clean.KeptBranch {
				what = a.Detail // it says "kept branch …" itself
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
