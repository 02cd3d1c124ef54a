package claudecode

import (
	"encoding/json"
	"strings"
)

// LeadMailboxName is the member name of a team's lead, and so the name of its inbox.
const LeadMailboxName = "team-lead"

// LeadSpec describes how to start a team's lead.
type LeadSpec struct {
	Program        string   // "claude" or a path
	ProgramArgs    []string // placed right after Program (a layout's claude.args)
	SessionID      string   // a UUID; the team is LeadTeamName(SessionID)
	TeammateMode   string   // "" omits --teammate-mode
	Model          string
	PermissionMode string
	Settings       string   // --settings value (hooks); "" for none
	Args           []string // extra arguments after teamctl's flags
	Prompt         string   // "" starts without a prompt
}

// SessionFlags are the flags whose value is a session id: teamctl gives each
// as one argument, --flag=value (Joined), never as two. teamctl takes the
// lead's session from its state.json when it resumes or completes a team
// (anyone running as the user can edit that file); glued to its flag, a value
// can never be read as a flag of its own. Claude Code's own leader does the
// same for values that start with "-". Claude Code 2.1.328 and 2.1.332 take
// both forms (docs/claude-code.md).
var SessionFlags = []string{"--session-id", "--parent-session-id", "--resume"}

// Joined is flag and its value as one argument: --flag=value.
func Joined(flag, value string) string { return flag + "=" + value }

// LeadArgv builds the lead's command line. The prompt follows "--", which makes
// Claude Code take a prompt that starts with "-" literally.
func LeadArgv(s LeadSpec) []string {
	argv := append([]string{s.Program}, s.ProgramArgs...)
	argv = append(argv, Joined("--session-id", s.SessionID))
	argv = appendIf(argv, "--teammate-mode", s.TeammateMode)
	argv = appendIf(argv, "--model", s.Model)
	argv = appendIf(argv, "--permission-mode", s.PermissionMode)
	argv = appendIf(argv, "--settings", s.Settings)
	argv = append(argv, s.Args...)
	if s.Prompt != "" {
		argv = append(argv, "--", s.Prompt)
	}
	return argv
}

// TeammateSpec describes how to start a teammate the way Claude Code's own lead
// starts one.
type TeammateSpec struct {
	Program          string
	ProgramArgs      []string
	Name, Team       string
	Color            string
	ParentSessionID  string // the lead's session id
	SessionID        string // the teammate's own session UUID; "" for none (Claude Code makes one)
	PlanModeRequired bool
	AgentType        string
	Model            string
	PermissionMode   string
	Settings         string
	Args             []string
}

// TeammateArgv builds a teammate's command line. A teammate gets its first prompt
// through its inbox (PromptMessage), not on the command line. Its own
// --session-id (Claude Code's leader passes none) names its conversation, so
// that a restart can --resume it: Claude Code 2.1.328 and 2.1.332 take both
// next to the identity flags and keep the identity (docs/claude-code.md).
func TeammateArgv(s TeammateSpec) []string {
	argv := append([]string{s.Program}, s.ProgramArgs...)
	argv = append(argv,
		"--agent-id", s.Name+"@"+s.Team,
		"--agent-name", s.Name,
		"--team-name", s.Team)
	argv = appendIf(argv, "--agent-color", s.Color)
	argv = append(argv, Joined("--parent-session-id", s.ParentSessionID))
	if s.SessionID != "" {
		argv = append(argv, Joined("--session-id", s.SessionID))
	}
	if s.PlanModeRequired {
		argv = append(argv, "--plan-mode-required")
	}
	argv = appendIf(argv, "--agent-type", s.AgentType)
	argv = appendIf(argv, "--model", s.Model)
	argv = appendIf(argv, "--permission-mode", s.PermissionMode)
	argv = appendIf(argv, "--settings", s.Settings)
	return append(argv, s.Args...)
}

// LeadEnv is the environment a lead needs on top of the team's own.
func LeadEnv() []string {
	return []string{"CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1"}
}

// TeammateEnv is the environment Claude Code's lead gives a teammate it starts.
func TeammateEnv() []string {
	return []string{"CLAUDECODE=1", "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1"}
}

func appendIf(argv []string, flag, value string) []string {
	if value == "" {
		return argv
	}
	return append(argv, flag, value)
}

// HookEvents are the Claude Code hook events teamctl listens to.
var HookEvents = []string{"Notification", "Stop", "StopFailure", "PermissionRequest", "TeammateIdle"}

// HookSettings is a --settings value whose hooks run command (a shell command
// line, as Claude Code runs hooks) for each of HookEvents.
func HookSettings(command string) string {
	hooks := map[string]any{}
	for _, ev := range HookEvents {
		hooks[ev] = []any{hookEntry(command)}
	}
	b, _ := json.Marshal(map[string]any{"hooks": hooks})
	return string(b)
}

// ShellQuote quotes s for a POSIX shell (hook commands go through one).
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
