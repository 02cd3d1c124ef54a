package main

import (
	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/clean"
)

// cleanArgs makes clean's options o of its argument and flags: TEAM or
// --team (not two teams; named says one was, which --all-teams does not go
// with), and --older-than, which goes with --snapshots only,
// as --force and --all do not.
func cleanArgs(cmd *cobra.Command, g *globals, o *clean.Options, named *bool, allTeams bool, args []string, olderThan string) error {
	if len(args) == 1 {
		if g.team != "" && g.team != args[0] {
			return usagef(cmd, "TEAM %s and --team %s name two teams: name one", args[0], g.team)
		}
		o.Team = args[0]
	} else {
		o.Team = g.team
	}
	*named = o.Team != ""
	if *named && allTeams {
		return usagef(cmd, "--all-teams and a team name (%s) do not go together: name one team, or every team", o.Team)
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
