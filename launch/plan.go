// Package launch decides what every pane of a team runs — its argv, its
// environment, its folder — for a first start (Plan), a relaunch in place
// (Relaunch: from the layout, never from what state.json recorded) and a
// resumed conversation (ResumeArgv), with Claude Code's hooks merged into
// the layout's own --settings, and whether an exit calls for a restart
// (RestartWanted). It is pure: it runs nothing and changes no file, so the
// exact launch of any layout is a table test.
package launch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
)

// Launch is everything one pane runs: the argv (no shell), its environment
// additions (given to tmux as -e, in order, later names winning), and its folder.
type Launch struct {
	Member    layouts.Member
	Role      state.Role
	Argv      []string
	Env       []string // NAME=VALUE
	Cwd       string
	SessionID string
	Digest    string // of argv, env and cwd, with teamctl's own path as a placeholder
	// OldDigest is the digest as teamctl up to issue 11 made it, with teamctl's
	// path inside: a member recorded with it is unchanged too (see reconcile).
	OldDigest string
	// NoSessionDigest is a teammate's Digest without its --session-id, as
	// teamctl up to issue 12 launched teammates: one recorded so (with no
	// session id) is unchanged too.
	NoSessionDigest string
	// ResumeArgv is, for a member running another agent CLI (Codex,
	// Gemini), its argv resuming its last session, which ArgvFor gives when
	// it resumes; nil for the others.
	ResumeArgv []string
}

// Programs are the resolved programs a plan launches.
type Programs struct {
	Claude  string            // absolute path of Claude Code (or its stand-in)
	Plain   map[string]string // member name → absolute path of its command[0]
	Teamctl string            // this teamctl, for Claude Code's hooks ("" for none)
}

// TeamVars are the variables teamctl itself sets in every pane.
func teamVars(team, member string) []string {
	return []string{"TEAMCTL_TEAM=" + team, "TEAMCTL_MEMBER=" + member}
}

// digestTeamctl stands for teamctl's own path in the digests: a new path of
// the same teamctl (another go run build, a reinstall elsewhere) changes no
// member's launch.
const digestTeamctl = "teamctl"

// Plan decides the launch of every member, lead first. leadSession is the lead's
// Claude Code session UUID; the teammates join the lead's implicit team.
// A layout's own --settings that cannot be read is an error naming the member.
// A leadSession that is not a session id (claudecode.ValidSessionID) is an
// error: it comes from state.json when a team is resumed or completed, which
// anyone running as the user can edit, and it goes into every Claude Code
// member's argv (--session-id, --parent-session-id, the team's name).
func Plan(l *layouts.Layout, progs Programs, leadSession string) ([]Launch, error) {
	if err := checkSession(leadSession); err != nil {
		return nil, fmt.Errorf("the lead's session: %w", err)
	}
	var out []Launch
	var errs []error
	for _, m := range l.All() {
		x, err := planMember(l, progs, leadSession, m)
		errs = append(errs, err)
		out = append(out, x)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// planMember is the launch of m, one of l's members, with its digests.
func planMember(l *layouts.Layout, progs Programs, leadSession string, m layouts.Member) (Launch, error) {
	x, err := launchOf(l, progs, leadSession, m)
	if err != nil || progs.Teamctl == "" || progs.Teamctl == digestTeamctl {
		return x, err
	}
	// The digests come from the same launch with the placeholder, so that the
	// path counts nowhere, however the settings quote it.
	p := progs
	p.Teamctl = digestTeamctl
	fixed, err := launchOf(l, p, leadSession, m)
	if err != nil {
		return Launch{}, err
	}
	x.OldDigest, x.Digest, x.NoSessionDigest = x.Digest, fixed.Digest, fixed.NoSessionDigest
	return x, nil
}

// launchOf is the launch of m: the lead when it is l's lead, a plain process
// when it has a command, else a Claude Code teammate.
func launchOf(l *layouts.Layout, progs Programs, leadSession string, m layouts.Member) (Launch, error) {
	teamEnv := envPairs(l.Env)
	if kind := m.OtherAgent(); kind != "" {
		return agentLaunch(l, progs, m, kind, teamEnv)
	}
	if !m.IsClaude() {
		argv := append([]string{progs.Plain[m.Name]}, m.Command[1:]...)
		return finish(Launch{
			Member: m, Role: state.RoleProcess, Cwd: m.Cwd, Argv: argv,
			Env: concat(teamEnv, envPairs(m.Env), teamVars(l.Team, m.Name)),
		}), nil
	}
	// Claude Code's hooks, merged into the layout's own --settings, which
	// leaves the args (Claude Code takes one).
	settings, programArgs, args := "", l.Claude.Args, m.Args
	if progs.Teamctl != "" {
		var err error
		settings, programArgs, args, err = hookSettings(l.Claude.Args, m, claudecode.ShellQuote(progs.Teamctl)+" hook")
		if err != nil {
			return Launch{}, err
		}
	}
	if m.Name == l.Lead.Name {
		return finish(Launch{
			Member: m, Role: state.RoleLead, Cwd: m.Cwd, SessionID: leadSession,
			Argv: claudecode.LeadArgv(claudecode.LeadSpec{
				Program: progs.Claude, ProgramArgs: programArgs, SessionID: leadSession,
				TeammateMode: m.TeammateMode, Model: m.Model, PermissionMode: m.PermissionMode,
				Settings: settings, Args: args, Prompt: m.Prompt,
			}),
			Env: concat(teamEnv, envPairs(m.Env), claudecode.LeadEnv(), teamVars(l.Team, m.Name)),
		}), nil
	}
	spec := claudecode.TeammateSpec{
		Program: progs.Claude, ProgramArgs: programArgs, Name: m.Name, Team: claudecode.LeadTeamName(leadSession),
		Color: m.Color, ParentSessionID: leadSession, PlanModeRequired: m.PlanModeRequired,
		AgentType: m.AgentType, Model: m.Model, PermissionMode: m.PermissionMode, Settings: settings, Args: args,
	}
	env := concat(teamEnv, envPairs(m.Env), claudecode.TeammateEnv(), teamVars(l.Team, m.Name))
	legacy := finish(Launch{Cwd: m.Cwd, Argv: claudecode.TeammateArgv(spec), Env: env})
	// Its own session, so that a restart resumes its conversation.
	spec.SessionID = claudecode.TeammateSessionID(leadSession, m.Name)
	x := finish(Launch{
		Member: m, Role: state.RoleTeammate, Cwd: m.Cwd, SessionID: spec.SessionID,
		Argv: claudecode.TeammateArgv(spec), Env: env,
	})
	x.NoSessionDigest = legacy.Digest
	return x, nil
}

// finish dedupes the environment (the last setting of a name wins, at the
// position of its first) and computes the digest that tells a changed member.
func finish(x Launch) Launch {
	x.Env = dedupeEnv(x.Env)
	x.Cwd = filepath.Clean(x.Cwd)
	b, _ := json.Marshal(struct {
		Argv []string
		Env  []string
		Cwd  string
	}{spaced(x.Argv), x.Env, x.Cwd})
	sum := sha256.Sum256(b)
	x.Digest = hex.EncodeToString(sum[:8])
	x.OldDigest = x.Digest
	return x
}

// spaced is argv with each session flag teamctl joins to its value
// (claudecode.SessionFlags) split in two again, up to a "--": the digest is
// of the launch as teamctl up to issue 21 gave it, so that the form changes
// no member's digest (a running team is not taken for a changed one).
func spaced(argv []string) []string {
	var out []string
	for i, a := range argv {
		if a == "--" {
			return append(out, argv[i:]...)
		}
		out = append(out, splitSessionFlag(a)...)
	}
	return out
}

// splitSessionFlag is a (--flag=value of a session flag) as two arguments,
// else a alone.
func splitSessionFlag(a string) []string {
	for _, f := range claudecode.SessionFlags {
		if v, ok := strings.CutPrefix(a, f+"="); ok {
			return []string{f, v}
		}
	}
	return []string{a}
}

func envPairs(vs []layouts.EnvVar) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, v.Name+"="+v.Value)
	}
	return out
}

func concat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func dedupeEnv(env []string) []string {
	idx := map[string]int{}
	var out []string
	for _, kv := range env {
		name := kv
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				name = kv[:i]
				break
			}
		}
		if i, ok := idx[name]; ok {
			out[i] = kv
			continue
		}
		idx[name] = len(out)
		out = append(out, kv)
	}
	return out
}

// LookupEnv finds name in the layout's settings for a member (member env over
// team env), falling back to teamctl's own environment, which the team's tmux
// server inherits.
func LookupEnv(l *layouts.Layout, m layouts.Member, name string, getenv func(string) string) string {
	for i := len(m.Env) - 1; i >= 0; i-- {
		if m.Env[i].Name == name {
			return m.Env[i].Value
		}
	}
	for i := len(l.Env) - 1; i >= 0; i-- {
		if l.Env[i].Name == name {
			return l.Env[i].Value
		}
	}
	return getenv(name)
}

// ClaudeConfigDir is the Claude Code folder of the team's lead, where its
// team's config, mailboxes and tasks are: the CLAUDE_CONFIG_DIR its launch
// gives it (the layout's env, else getenv's), else HOME's .claude likewise.
// It is where teamctl reads and writes Claude Code's files for the team.
func ClaudeConfigDir(l *layouts.Layout, getenv func(string) string) string {
	get := func(name string) string { return LookupEnv(l, l.Lead, name, getenv) }
	if d := get("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	return filepath.Join(get("HOME"), ".claude")
}

// SessionEnv is the tmux session's environment: the team's env and
// TEAMCTL_TEAM. Teammates the lead spawns itself get the session's
// environment, not the lead's, so the team's env must be there too.
func SessionEnv(l *layouts.Layout) []string {
	return dedupeEnv(append(envPairs(l.Env), "TEAMCTL_TEAM="+l.Team))
}
