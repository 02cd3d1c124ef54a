package main

import (
	"fmt"
	"io"

	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/layouts"
)

// printInit says what init wrote, and what comes next.
func printInit(out io.Writer, spec layouts.StarterSpec, noWorktrees error) {
	where := "each in a worktree of its own"
	if noWorktrees != nil {
		where = "in this folder (no worktrees: " + textsafe.Visible(noWorktrees.Error()) + ")"
	}
	by := ""
	if spec.StandIn != "" {
		by = ", run by teamctl's stand-in: no Claude Code needed"
	}
	fmt.Fprintf(out, "wrote %s (team %s: a lead and two teammates, alice and bob, %s%s)\n", initFile, spec.Team, where, by)
	fmt.Fprintf(out, "give the lead and the teammates their prompts, then: teamctl up; teamctl top\n")
}
