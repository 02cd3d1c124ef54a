package main

import (
	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/clean"
)

// cleanArgs makes clean's options o of its argument and flags: TEAM or
// --team (not two teams), and --older-than, which goes with --snapshots only,
// as --force and --all do not.
func cleanArgs(cmd *cobra.Command, g *globals, o *clean.Options, args []string, olderThan string) error {
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
	return nil
}
