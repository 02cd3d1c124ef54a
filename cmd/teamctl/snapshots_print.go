package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/worktrees"
)

// writeSnapshots writes the snapshots' table to w, times in UTC, commits
// cut to 12 characters.
func writeSnapshots(w io.Writer, list []worktrees.SnapshotInfo) error {
	v := textsafe.Visible
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTIME\tCOMMIT\tSUMMARY\tREPOSITORY")
	for _, s := range list {
		when := "-"
		if !s.Time.IsZero() {
			when = s.Time.Format("2006-01-02 15:04:05Z")
		}
		fmt.Fprintf(tw, "%s\t%s\t%.12s\t%s\t%s\n", v(s.Name), when, s.Commit, v(s.Summary), v(s.Repo))
	}
	return tw.Flush()
}
