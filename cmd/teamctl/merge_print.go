package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team"
)

// What merge and finish print, and the flags they share. Names and
// messages may be an agent's (a branch, a file): made visible before they
// reach the terminal.

// printLanded says what landed of one member: verb member: branch into
// target, the commits, where the target moved, and what else was done.
func printLanded(out io.Writer, verb string, l team.Landed) {
	v := textsafe.Visible
	if l.UpToDate {
		fmt.Fprintf(out, "%s %s: nothing to land, %s has all of %s already\n", verb, v(l.Member), v(l.Into), v(l.Branch))
	} else {
		how := "merged"
		if l.Squash {
			how = "squashed"
		}
		fmt.Fprintf(out, "%s %s: %s %s into %s (%d commit(s)), %.10s..%.10s\n", verb, v(l.Member), how, v(l.Branch), v(l.Into), l.Commits, l.Old, l.New)
	}
	if l.WIP != "" {
		fmt.Fprintf(out, "  --wip: its uncommitted work is commit %.10s on %s\n", l.WIP, v(l.Branch))
	}
	for _, lo := range l.LeftOut {
		fmt.Fprintf(out, "  not committed, still in its worktree: %s (%s)\n", v(lo.Path), lo.Why)
	}
	if l.Checkout != "" {
		fmt.Fprintf(out, "  brought forward: %s, where %s is checked out\n", v(l.Checkout), v(l.Into))
	}
}

// printFinished says what finish did of one member.
func printFinished(out io.Writer, f team.Finished) {
	printLanded(out, "finished", f.Landed)
	fmt.Fprintf(out, "  removed worktree %s\n", textsafe.Visible(f.Worktree))
	if f.Branch != "" {
		fmt.Fprintf(out, "  deleted branch %s\n", textsafe.Visible(f.Branch))
	} else {
		fmt.Fprintf(out, "  kept branch %s: %s\n", textsafe.Visible(f.Landed.Branch), f.Kept)
	}
	if s := f.Snapshot; s != nil {
		fmt.Fprintf(out, "  what removing them would have lost is in snapshot %s: `%s` brings it back\n", textsafe.Visible(s.Name()), textsafe.Visible(f.Restore))
	}
}

// refused says, on the error stream when say, why a member was refused and
// who was not tried; exit 1 when one was.
func refused(ios *iostreams.IO, r *team.Refusal, say bool) error {
	if r == nil {
		return nil
	}
	if say {
		fmt.Fprintf(ios.ErrOut, "refused %s: %s\n", textsafe.Visible(r.Member), textsafe.Visible(r.Why))
		for _, c := range r.Conflicts {
			fmt.Fprintf(ios.ErrOut, "  conflict (%s): %s\n", c.Kind, textsafe.Visible(c.Path))
		}
		if len(r.NotTried) > 0 {
			fmt.Fprintf(ios.ErrOut, "not tried: %s\n", textsafe.Visible(strings.Join(r.NotTried, ", ")))
		}
	}
	return exitError{1}
}

// addMergeFlags are merge's flags, finish's too.
func addMergeFlags(cmd *cobra.Command, o *team.MergeOptions) {
	cmd.Flags().StringVar(&o.Into, "into", "", "the branch to land in (default: the one each member's worktree was made from)")
	cmd.Flags().BoolVar(&o.Squash, "squash", false, "one commit of the member's changes, not a merge commit")
	cmd.Flags().StringVarP(&o.Message, "message", "m", "", "the commit's message (default: names the member's branch)")
	cmd.Flags().BoolVar(&o.WIP, "wip", false, "commit a member's uncommitted work on its branch first, instead of refusing")
}
