package main

import (
	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/state"
)

// completeTeams offers the teams teamctl has state for (--team, clean TEAM).
func completeTeams(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	names, _ := state.List()
	return names, cobra.ShellCompDirectiveNoFileComp
}

// completeMembers offers the members of the team the command acts on, as its
// first argument (attach, approve, deny, send, inbox, answer, restart, logs).
func completeMembers(g *globals) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		t, err := g.open(cmd)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		st, err := t.Status(cmd.Context())
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var names []string
		for _, m := range st.Members {
			names = append(names, m.Name+"\t"+m.Role+", "+string(m.State)) // shells that show descriptions show the state
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}
