package relaunch

import (
	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/state"
)

// ClaudeConfigDir is Claude Code's folder of team st (launch.TeamClaudeConfigDir).
func ClaudeConfigDir(st *state.Team) string { return launch.TeamClaudeConfigDir(st) }
