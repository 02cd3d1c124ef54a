package launch

import (
	"github.com/teamctl/teamctl/state"
)

// RelaunchArgv is what a member runs when it is relaunched (in a new pane in
// its place: tmux.ReplacePane) with the argv, environment and folder it was
// started with (recorded in state): with resume, the lead or a Claude Code
// teammate resumes its conversation (--resume) rather than starting a new
// session under the same id, which Claude Code refuses ("Session ID … is
// already in use") — the caller knows whether Claude Code stored it.
func RelaunchArgv(m *state.Member, resume bool) []string {
	if resume && (m.Role == state.RoleLead || m.Role == state.RoleTeammate) {
		return ResumeArgv(m)
	}
	return m.Argv
}

// ResumeArgv is a member's argv for a relaunch that resumes its conversation:
// `--session-id U` becomes `--resume U`, and a lead's first prompt is not sent
// again. (One that never stored a conversation is relaunched as it was started.)
func ResumeArgv(m *state.Member) []string {
	var out []string
	for i := 0; i < len(m.Argv); i++ {
		a := m.Argv[i]
		switch {
		case a == "--session-id" && i+1 < len(m.Argv):
			out = append(out, "--resume", m.Argv[i+1])
			i++
		case a == "--" && m.Role == state.RoleLead:
			return out // the first prompt, which the resumed conversation already has
		default:
			out = append(out, a)
		}
	}
	return out
}

// RestartWanted says whether a member's restart policy ("" is on-failure)
// relaunches it after it ended with exit status code (nil: unknown) or signal
// sig. (A member the lead spawned is never relaunched, and one that exits too
// often is given up on: see afterExit.)
func RestartWanted(policy string, code *int, sig int) bool {
	failed := sig != 0 || code == nil || *code != 0
	switch policy {
	case "never":
		return false
	case "always":
		return true
	}
	return failed
}

// EnvFlags gives env to a tmux create or respawn command (-e NAME=VALUE each;
// tmux gets them through a command file, never its command line).
func EnvFlags(env []string) []string {
	out := make([]string, 0, 2*len(env))
	for _, kv := range env {
		out = append(out, "-e", kv)
	}
	return out
}

// Decoration are the tmux commands that mark a member's pane: its title and
// teamctl's @teamctl-member (which the pane border shows, and which tells a
// pane of the team from any other), and its border in the member's colour.
func Decoration(pane, name, color string) [][]string {
	cmds := [][]string{
		{"select-pane", "-t", pane, "-T", name},
		{"set-option", "-p", "-t", pane, "@teamctl-member", name},
	}
	if c := tmuxColour(color); c != "" {
		cmds = append(cmds,
			[]string{"set-option", "-p", "-t", pane, "pane-border-style", "fg=" + c},
			[]string{"set-option", "-p", "-t", pane, "pane-active-border-style", "fg=" + c + ",bold"})
	}
	return cmds
}

// tmuxColour maps Claude Code's colour names to tmux's.
func tmuxColour(c string) string {
	switch c {
	case "purple":
		return "magenta"
	case "orange":
		return "colour208"
	case "pink":
		return "colour213"
	}
	return c
}
