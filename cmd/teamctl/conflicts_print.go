package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/team"
	"github.com/teamctl/teamctl/worktrees"
)

// What `conflicts` prints; as diff's (diff_print.go), everything an agent
// wrote is made visible before it reaches the terminal.

// printConflicts prints what merging would do, pair by pair, then each
// member into its base, then who was not compared.
func printConflicts(out io.Writer, c *team.Conflicts, color bool) {
	line := func(who string, m worktrees.Merge, errText string) {
		switch {
		case errText != "":
			fmt.Fprintf(out, "%s: cannot tell: %s\n", who, textsafe.Visible(errText))
		case len(m.Conflicts) > 0:
			var cs []string
			for _, x := range m.Conflicts {
				cs = append(cs, textsafe.Visible(x.Path)+" ("+x.Kind+")")
			}
			var also []string
			for _, p := range m.Both {
				if !slices.ContainsFunc(m.Conflicts, func(x worktrees.Conflict) bool { return x.Path == p }) {
					also = append(also, p)
				}
			}
			if len(also) > 0 {
				cs = append(cs, "and both change "+visibleList(also), "which merge cleanly")
			}
			fmt.Fprintf(out, "%s: %s in %s\n", who, paint(color, "1;31", "conflict"), strings.Join(cs, ", "))
		case len(m.Both) > 0:
			fmt.Fprintf(out, "%s: both change %s, which merge cleanly\n", who, visibleList(m.Both))
		}
	}
	conflicts := 0
	for _, p := range c.Pairs {
		line(textsafe.Visible(p.Members[0]+" and "+p.Members[1]), p.Merge, p.Error)
		conflicts += min(len(p.Conflicts), 1)
	}
	for _, b := range c.Bases {
		line(textsafe.Visible(fmt.Sprintf("%s into %s (%s since %s started)", b.Member, b.Base, plural(b.Moved, "commit"), b.Member)), b.Merge, b.Error)
		conflicts += min(len(b.Conflicts), 1)
	}
	fmt.Fprintf(out, "%s and %s compared: %s\n", plural(len(c.Pairs), "pair"), plural(len(c.Bases), "moved base"), map[bool]string{true: plural(conflicts, "conflict"), false: "no conflict"}[conflicts > 0])
	for _, s := range append(c.Skipped, c.Unread...) {
		fmt.Fprintf(out, "%s: not compared: %s\n", textsafe.Visible(s.Member), textsafe.Visible(s.Why))
	}
}

func visibleList(paths []string) string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = textsafe.Visible(p)
	}
	return strings.Join(out, ", ")
}
