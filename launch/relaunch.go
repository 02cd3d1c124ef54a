package launch

import (
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// RespawnArgs is the tmux command that relaunches a member in its own pane
// with the argv, environment and folder it was started with (recorded in
// state); with resume, the lead or a Claude Code teammate resumes its
// conversation (--resume) rather than starting a new session under the same
// id, which Claude Code refuses ("Session ID … is already in use") — the
// caller knows whether Claude Code stored it.
func RespawnArgs(m *state.Member, resume bool) []string {
	argv := m.Argv
	if resume && (m.Role == state.RoleLead || m.Role == state.RoleTeammate) {
		argv = ResumeArgv(m)
	}
	args := []string{"respawn-pane", "-k", "-t", m.Pane, "-c", tmux.EscapeFormat(m.Cwd)}
	args = append(args, EnvFlags(m.Env)...)
	return append(args, tmux.CommandArgs(argv)...)
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
