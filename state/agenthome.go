package state

import (
	"fmt"
	"regexp"
)

// agentKind is an agent CLI's kind as it names a folder ("codex", "gemini").
var agentKind = regexp.MustCompile(`^[a-z][a-z0-9]{0,15}$`)

// AgentHome is the folder of team's member, another vendor's agent CLI of
// kind, where that CLI keeps its config, login and sessions:
// agents/<member>/<kind> in the team's folder. It is the member's alone: what
// is in it counts for that member and no other.
func AgentHome(team, member, kind string) (string, error) {
	if !agentKind.MatchString(kind) {
		return "", fmt.Errorf("invalid agent kind %q for a file name", kind)
	}
	return memberPlace(team, member, "agents", member, kind)
}
