package state

import (
	"fmt"
	"path/filepath"
	"regexp"
)

// agentKind is an agent CLI's kind as it names a folder ("codex", "gemini").
var agentKind = regexp.MustCompile(`^[a-z][a-z0-9]{0,15}$`)

// AgentHome is the folder of team's member, another vendor's agent CLI of
// kind, where that CLI keeps its config, login and sessions:
// agents/<member>/<kind> in the team's folder. It is the member's alone: what
// is in it counts for that member and no other.
func AgentHome(team, member, kind string) (string, error) {
	if !memberFileName.MatchString(member) {
		return "", fmt.Errorf("invalid member name %q for a file name", member)
	}
	if !agentKind.MatchString(kind) {
		return "", fmt.Errorf("invalid agent kind %q for a file name", kind)
	}
	d, err := Dir(team)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "agents", member, kind), nil
}
