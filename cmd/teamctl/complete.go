package main

import (
	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/team"
)

// completeTeams offers the teams teamctl has state for (--team, clean TEAM).
func completeTeams(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	names, _ := state.List()
	return names, cobra.ShellCompDirectiveNoFileComp
}

// completeMembers offers the members of the team the command acts on, as its
// first argument (attach, approve, deny, send, inbox, answer, restart, logs). With
// several teams up and none named, the members of all of them: the command
// takes the one team that has the member chosen (team.FindFor).
func completeMembers(g *globals) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		teams := []string{g.team}
		if _, err := team.Find(cmd.Context(), g.team, g.tmuxBin); err != nil {
			_, up, lerr := team.UpTeams(cmd.Context(), g.tmuxBin)
			if lerr != nil || len(up) < 2 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			teams = up
		}
		var names []string
		for _, name := range teams {
			t, err := g.openNamed(cmd, name)
			if err != nil {
				continue
			}
			st, err := t.Status(cmd.Context())
			if err != nil {
				continue
			}
			for _, m := range st.Members {
				desc := string(m.Role) + ", " + string(m.State) // shells that show descriptions show the state
				if len(teams) > 1 {
					desc = "team " + st.Team + ", " + desc
				}
				names = append(names, m.Name+"\t"+desc)
			}
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}
