package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/doctor"
	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/layouts"
)

func newDoctorCmd(io *iostreams.IO, g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use: "doctor [LAYOUT]",
		Example: `  teamctl doctor
  teamctl doctor layout.yaml --json`,
		Short: "Check tmux, Claude Code, git and teamctl's folders, with a fix for each problem",
		Long: `Check tmux, Claude Code, git and teamctl's folders, with a fix for each problem.
With a layout, Claude Code is the layout's claude.command with its claude.args,
found as up finds it (TEAMCTL_CLAUDE still wins), and doctor also checks that
Claude Code trusts each Claude Code member's folder (its worktree's, for a
member with one): an untrusted folder stops the member at Claude Code's trust
dialog.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var l *layouts.Layout
			if len(args) == 1 {
				var err error
				if l, err = layouts.Parse(args[0]); err != nil {
					return err
				}
			}
			checks := doctor.Run(cmd.Context(), g.tmuxBin, os.Getenv("TEAMCTL_CLAUDE"), l)
			if l != nil {
				checks = append(checks, doctor.Layout(cmd.Context(), l)...)
			}
			failed := false
			for _, c := range checks {
				failed = failed || !c.OK
			}
			if asJSON {
				if err := writeJSON(io, checks); err != nil {
					return err
				}
			} else {
				for _, c := range checks {
					mark := io.Color("32", "ok  ")
					switch {
					case !c.OK:
						mark = io.Color("31", "FAIL")
					case c.Warn:
						mark = io.Color("33", "warn")
					}
					fmt.Fprintf(io.Out, "%s  %-14s %s\n", mark, c.Name, c.Detail)
					if c.Fix != "" {
						fmt.Fprintf(io.Out, "      %-14s fix: %s\n", "", c.Fix)
					}
				}
			}
			if failed {
				return exitError{1}
			}
			return nil
		},
	}
	addJSONFlag(cmd, &asJSON, "")
	return cmd
}
