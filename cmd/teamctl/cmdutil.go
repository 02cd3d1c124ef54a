package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
)

// teamFlagUsage is --team's help where it picks the team a command acts on.
const teamFlagUsage = "the team to act on (default: $TEAMCTL_TEAM, else the team of this pane or folder, else the only team up)"

// addTeamFlag gives cmd --team, for a command about one team; a command
// without it has no such flag (an unknown flag, never one silently ignored).
func (g *globals) addTeamFlag(cmd *cobra.Command, usage string) {
	cmd.Flags().StringVar(&g.team, "team", "", usage)
	cmd.RegisterFlagCompletionFunc("team", completeTeams)
}

// addJSONFlag gives a listing its --json switch, the same for every listing;
// what says what the JSON is.
func addJSONFlag(cmd *cobra.Command, dst *bool, what string) {
	if what == "" {
		what = "print JSON"
	}
	cmd.Flags().BoolVar(dst, "json", false, what)
}

// writeJSON prints v as indented JSON, as every listing's --json does.
func writeJSON(ios *iostreams.IO, v any) error {
	enc := json.NewEncoder(ios.Out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}
