package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/teamctl/teamctl/clean"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/internal/textsafe"
)

// printPlan prints clean's plan, before anything is done.
func printPlan(io *iostreams.IO, r *clean.Report) {
	if len(r.Actions) == 0 {
		fmt.Fprintln(io.Out, "nothing to clean")
		return
	}
	fmt.Fprintln(io.Out, "plan:")
	printActions(io, r, false)
}

// printNotes prints the report's notes.
func printNotes(io *iostreams.IO, r *clean.Report) {
	for _, n := range r.Notes {
		fmt.Fprintln(io.Out, "note:", textsafe.Visible(n))
	}
}

// printCleaned prints what clean did (after a dry run, only what it would
// do in a line).
func printCleaned(io *iostreams.IO, r *clean.Report) {
	if len(r.Actions) == 0 {
		return
	}
	if !r.DryRun {
		fmt.Fprintln(io.Out, "\nresult:")
		printActions(io, r, true)
	}
	fmt.Fprintln(io.Out, r.Summary())
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
