package state

// ClaudeTeamOwners maps each Claude Code team that a team's state.json
// records — its current one and those of its earlier lives — to the teams
// that record it. A Claude Code team one teamctl team records is never
// another's to follow or remove. A state.json that cannot be loaded records
// nothing.
func ClaudeTeamOwners() (map[string][]string, error) {
	names, err := List()
	if err != nil {
		return nil, err
	}
	owners := map[string][]string{}
	for _, team := range names {
		st, err := Load(team)
		if err != nil {
			continue
		}
		seen := map[string]bool{}
		for _, life := range st.Lives() {
			if life.ClaudeTeam != "" && !seen[life.ClaudeTeam] {
				seen[life.ClaudeTeam] = true
				owners[life.ClaudeTeam] = append(owners[life.ClaudeTeam], team)
			}
		}
	}
	return owners, nil
}

// OwnedByAnother returns a team other than team that owners says records
// the Claude Code team name, or "".
func OwnedByAnother(owners map[string][]string, name, team string) string {
	for _, t := range owners[name] {
		if t != team {
			return t
		}
	}
	return ""
}
