package standin

import "strings"

// options are the Claude Code flags the stand-in understands.
type options struct {
	sessionID, teammateMode                           string
	agentID, agentName, teamName, agentColor          string
	parentSessionID, agentType, model, permissionMode string
	resume, settings                                  string
	planModeRequired                                  bool
	prompt                                            string
}

// ignoredValueFlags are Claude Code flags the stand-in ignores that take a value, so
// the value is not mistaken for the prompt.
var ignoredValueFlags = map[string]bool{
	"--add-dir": true, "--plugin-dir": true, "--mcp-config": true, "--agents": true,
	"--allowedTools": true, "--allowed-tools": true, "--disallowedTools": true, "--disallowed-tools": true,
	"--append-system-prompt": true, "--system-prompt": true, "--fallback-model": true,
	"--output-format": true, "--input-format": true, "--setting-sources": true,
	"--permission-prompt-tool": true, "--max-turns": true,
}

// parseFlags reads Claude Code's command line leniently: unknown flags are skipped,
// "--" ends the flags, and the first argument that is not a flag is the prompt.
func parseFlags(args []string) options {
	var o options
	values := map[string]*string{
		"--session-id": &o.sessionID, "--teammate-mode": &o.teammateMode,
		"--agent-id": &o.agentID, "--agent-name": &o.agentName, "--team-name": &o.teamName,
		"--agent-color": &o.agentColor, "--parent-session-id": &o.parentSessionID,
		"--agent-type": &o.agentType, "--model": &o.model, "--permission-mode": &o.permissionMode,
		"--resume": &o.resume, "--settings": &o.settings,
	}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			rest = append(rest, a)
			continue
		}
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case name == "--plan-mode-required":
			o.planModeRequired = true
		case values[name] != nil || ignoredValueFlags[name]:
			if !hasVal && i+1 < len(args) {
				i++
				val = args[i]
			}
			if p := values[name]; p != nil {
				*p = val
			}
		}
	}
	if len(rest) > 0 {
		o.prompt = rest[0]
	}
	return o
}
