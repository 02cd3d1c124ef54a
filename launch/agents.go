package launch

import (
	"fmt"
	"slices"

	"github.com/teamctl/teamctl/codexcli"
	"github.com/teamctl/teamctl/geminicli"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
)

// agentLaunch is the launch of a member running another vendor's agent CLI
// (kind: Codex, Gemini): `teamctl agent KIND -- ARGV`, which gives it a
// home folder of its own (made from the user's, never changing it) and then
// is the CLI, started as its users start it (codexcli.Argv, geminicli.Argv).
// It is watched as a process whose screens stallwatch knows.
func agentLaunch(l *layouts.Layout, progs Programs, m layouts.Member, kind string, teamEnv []string) (Launch, error) {
	if progs.Teamctl == "" {
		return Launch{}, fmt.Errorf("member %s: a %s member is started by teamctl agent, and teamctl's own path is not known", m.Name, kind)
	}
	prog := progs.Plain[m.Name]
	var cli, resume []string
	switch kind {
	case layouts.AgentCodex:
		cli = codexcli.Argv(prog, l.Agents[kind].Args, m.Cwd, m.PermissionMode, m.Model, m.Args, m.Prompt)
		resume = codexcli.ResumeArgv(prog, l.Agents[kind].Args, m.Cwd, m.PermissionMode, m.Model, m.Args)
	case layouts.AgentGemini:
		cli = geminicli.Argv(prog, l.Agents[kind].Args, m.PermissionMode, m.Model, m.Args, m.Prompt)
		resume = geminicli.ResumeArgv(prog, l.Agents[kind].Args, m.PermissionMode, m.Model, m.Args)
	default:
		return Launch{}, fmt.Errorf("member %s: agent %q is not one teamctl runs", m.Name, kind)
	}
	start := []string{progs.Teamctl, "agent", kind, "--"}
	x := finish(Launch{
		Member: m, Role: state.RoleProcess, Cwd: m.Cwd, Argv: append(slices.Clone(start), cli...),
		Env: concat(teamEnv, envPairs(m.Env), teamVars(l.Team, m.Name)),
	})
	x.ResumeArgv = append(start, resume...) // not in the digest: the same launch, resumed
	return x, nil
}
