// Package agentstart readies what a member running another vendor's agent
// CLI (Codex, Gemini) needs before its program starts in its pane (`teamctl
// agent`): a home folder of its own under the team's state folder, made
// from the user's, and the environment that names it.
package agentstart

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/codexcli"
	"github.com/teamctl/teamctl/geminicli"
	"github.com/teamctl/teamctl/internal/proc"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
)

// Ready makes the home of team's member, an agent CLI of kind working in
// folder dir, and returns env (NAME=VALUE, as os.Environ) with it named and
// what the CLI must not see taken out. teamctl, when not "", is the teamctl
// the CLI tells of its turn ends (`teamctl hook --from KIND`).
func Ready(kind, team, member, dir, teamctl string, env []string) ([]string, error) {
	if !claudecode.ValidMemberName(member) {
		return nil, fmt.Errorf("member %q: not a member's name", member)
	}
	home, err := state.AgentHome(team, member, kind)
	if err != nil {
		return nil, err
	}
	getenv := func(name string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], name+"="); ok {
				return v
			}
		}
		return ""
	}
	switch kind {
	case layouts.AgentCodex:
		var notify []string
		if teamctl != "" {
			notify = []string{teamctl, "hook", "--from", layouts.AgentCodex}
		}
		if err := codexcli.MakeHome(home, codexcli.UserHome(getenv), dir, notify); err != nil {
			return nil, fmt.Errorf("member %s's Codex folder: %w", member, err)
		}
		return setEnv(env, nil, codexcli.HomeEnv+"="+home), nil
	case layouts.AgentGemini:
		var hook *geminicli.Hook
		if teamctl != "" {
			// Gemini CLI may pass a hook only part of its environment
			// (its redaction settings): the hook's own env names the
			// member and its pane.
			hook = &geminicli.Hook{Argv: []string{teamctl, "hook", "--from", layouts.AgentGemini},
				Env: map[string]string{"TEAMCTL_TEAM": team, "TEAMCTL_MEMBER": member, "TMUX_PANE": getenv("TMUX_PANE")}}
		}
		if err := geminicli.MakeHome(home, geminicli.UserHome(getenv), hook); err != nil {
			return nil, fmt.Errorf("member %s's Gemini CLI home: %w", member, err)
		}
		return setEnv(env, geminicli.Unset, append([]string{geminicli.HomeEnv + "=" + home}, geminicli.Env...)...), nil
	}
	return nil, fmt.Errorf("agent %q: teamctl runs codex and gemini this way", kind)
}

// setEnv is env without the names in unset and with each of set (NAME=VALUE)
// in place of any earlier value.
func setEnv(env, unset []string, set ...string) []string {
	drop := slices.Clone(unset)
	for _, kv := range set {
		name, _, _ := strings.Cut(kv, "=")
		drop = append(drop, name)
	}
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(drop, name)
	})
	return append(out, set...)
}

// HasSession reports whether team's member, an agent CLI of kind, stored a
// session in its home that a relaunch resumes (codex resume --last, gemini
// --resume latest).
func HasSession(kind, team, member string) bool {
	if !claudecode.ValidMemberName(member) {
		return false
	}
	home, err := state.AgentHome(team, member, kind)
	if err != nil {
		return false
	}
	switch kind {
	case layouts.AgentCodex:
		return codexcli.HasSession(home)
	case layouts.AgentGemini:
		return geminicli.HasSession(home)
	}
	return false
}

// homeEnvs are the variables that name an agent CLI's home.
var homeEnvs = []string{codexcli.HomeEnv, geminicli.HomeEnv}

// EndRunningIn ends (SIGTERM, then SIGKILL after grace) this user's processes
// whose agent home (CODEX_HOME, GEMINI_CLI_HOME) is under dir, by pid, and
// returns them: what a member's CLI started that outlives its pane and its
// server (Codex 0.171.0's app-server daemon; docs/codex.md).
func EndRunningIn(ctx context.Context, dir string, grace time.Duration) []int {
	prefix := filepath.Clean(dir) + string(filepath.Separator)
	pids := proc.Matching(func(env map[string]string) bool {
		for _, k := range homeEnvs {
			if strings.HasPrefix(env[k], prefix) {
				return true
			}
		}
		return false
	})
	proc.End(ctx, proc.Processes(pids), grace)
	return pids
}
