// Package doctor checks what teamctl needs on this machine and says how to fix
// what is missing.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/teamctl/teamctl/claudecode"
	"github.com/teamctl/teamctl/codexcli"
	"github.com/teamctl/teamctl/geminicli"
	"github.com/teamctl/teamctl/internal/safefile"
	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/standin"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
	"github.com/teamctl/teamctl/trust"
	"github.com/teamctl/teamctl/worktrees"
)

// TestedClaudeVersion is the newest Claude Code version teamctl was tested
// against; claudecode.TestedVersions lists them all (the list .ci/run runs
// the end-to-end tests on).
var TestedClaudeVersion = newest(claudecode.TestedVersions())

func newest(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// Check is one line of the report.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Warn   bool   `json:"warn,omitempty"` // works, but not as tested
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Run performs every check. claude is TEAMCTL_CLAUDE ("" for none); with a
// layout l, Claude Code is what up launches for it — claude.command (found from
// the layout's root, as up does) with claude.args, unless claude overrides the
// program — else claude, or "claude" from PATH.
func Run(ctx context.Context, tmuxBin, claude string, l *layouts.Layout) []Check {
	return []Check{checkTmux(ctx, tmuxBin), checkClaude(ctx, claude, l), checkGit(ctx), checkStateDir(), checkClaudeDir()}
}

func checkTmux(ctx context.Context, bin string) Check {
	v, err := tmux.CheckVersion(ctx, bin)
	if err != nil {
		return Check{Name: "tmux", Detail: err.Error(), Fix: fmt.Sprintf("install tmux %d.%d or newer (Debian/Ubuntu: apt-get install tmux; macOS: brew install tmux)", tmux.MinMajor, tmux.MinMinor)}
	}
	return Check{Name: "tmux", OK: true, Detail: v.Raw}
}

func checkClaude(ctx context.Context, prog string, l *layouts.Layout) Check {
	fix := "npm install -g @anthropic-ai/claude-code@" + TestedClaudeVersion + " (or set TEAMCTL_CLAUDE / claude.command)"
	var path string
	var args []string
	if l != nil && !l.HasLead() && prog == "" {
		return Check{Name: "claude", OK: true, Detail: "not needed: the layout is a team of plain processes (no lead, no Claude Code member)"}
	}
	if l != nil {
		var err error
		if path, err = launch.ResolveClaude(l, prog); err != nil {
			return Check{Name: "claude", Detail: err.Error(), Fix: fix}
		}
		args = l.Claude.Args // up puts them right after the program, as here
	} else {
		if prog == "" {
			prog = "claude"
		}
		var err error
		if path, err = exec.LookPath(prog); err != nil {
			return Check{Name: "claude", Detail: fmt.Sprintf("%s not found: %v", prog, err), Fix: fix}
		}
	}
	out, err := runVersion(ctx, path, append(slices.Clone(args), "--version")...)
	if err != nil {
		return Check{Name: "claude", Detail: fmt.Sprintf("%s --version failed: %v", path, err), Fix: fix}
	}
	if strings.HasPrefix(out, standin.VersionText) {
		// teamctl's own stand-in (teamctl demo, the tests, a layout tried
		// without an API key): not Claude Code, and not meant to be.
		return Check{Name: "claude", OK: true, Detail: fmt.Sprintf("teamctl's stand-in for Claude Code (%s): scripted agents, no Claude Code or API key needed (TEAMCTL_STANDIN_SCRIPT; see docs/layout.md, \"The stand-in\")", strings.Join(append([]string{path}, args...), " "))}
	}
	tested := strings.Join(claudecode.TestedVersions(), ", ")
	c := Check{Name: "claude", OK: true, Detail: fmt.Sprintf("%s (%s), a version teamctl's tests ran on", out, path)}
	if !claudecode.IsTestedVersion(claudecode.Version(out)) {
		c.Warn = true
		c.Detail = fmt.Sprintf("%s (%s), not a version teamctl's tests ran on (%s)", out, path, tested)
		c.Fix = "teamctl was tested with Claude Code " + tested + "; screens and team files may differ in other versions (npm install -g @anthropic-ai/claude-code@" + TestedClaudeVersion + ")"
	}
	return c
}

func checkGit(ctx context.Context) Check {
	out, err := worktrees.GitVersion(ctx)
	if errors.Is(err, worktrees.ErrNoGit) {
		return Check{Name: "git", Detail: "git not found (worktrees need it)", Fix: "install git (Debian/Ubuntu: apt-get install git)"}
	}
	if err != nil {
		return Check{Name: "git", Detail: err.Error(), Fix: "reinstall git"}
	}
	return Check{Name: "git", OK: true, Detail: out}
}

// versionWait bounds a program's --version: an agent CLI on Node loads its
// whole bundle first, which took over 10 s on a busy 2-core machine (the
// Gemini CLI, in .ci/run's parallel e2e tests).
const versionWait = 30 * time.Second

func runVersion(ctx context.Context, path string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, versionWait)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, args...).Output()
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// checkStateDir makes sure teamctl can keep state: the folder exists or can be
// made, is private, and takes a file.
func checkStateDir() Check {
	root, err := state.Root()
	if err != nil {
		return Check{Name: "state folder", Detail: err.Error(), Fix: "set HOME or XDG_STATE_HOME"}
	}
	if err := state.EnsureRoot(); err != nil {
		if errors.Is(err, safefile.ErrUnsafeDir) {
			return Check{Name: "state folder", Detail: err.Error(), Fix: "make " + root + " a folder of your own that only you can write (chmod 700), or set XDG_STATE_HOME"}
		}
		return Check{Name: "state folder", Detail: err.Error(), Fix: "make " + filepath.Dir(root) + " writable, or set XDG_STATE_HOME"}
	}
	f, err := os.CreateTemp(root, ".doctor-*")
	if err != nil {
		return Check{Name: "state folder", Detail: err.Error(), Fix: "make " + root + " writable, or set XDG_STATE_HOME"}
	}
	f.Close()
	os.Remove(f.Name())
	fi, _ := os.Stat(root)
	if fi != nil && fi.Mode().Perm()&0o077 != 0 {
		return Check{Name: "state folder", OK: true, Warn: true, Detail: fmt.Sprintf("%s is readable by others (%v)", root, fi.Mode().Perm()), Fix: "chmod 700 " + root}
	}
	return Check{Name: "state folder", OK: true, Detail: root}
}

func checkClaudeDir() Check {
	dir, err := claudecode.ConfigDir()
	if err != nil {
		return Check{Name: "claude config", Detail: err.Error(), Fix: "set HOME or CLAUDE_CONFIG_DIR"}
	}
	if _, err := os.Stat(dir); err != nil {
		return Check{Name: "claude config", OK: true, Warn: true, Detail: dir + " does not exist yet", Fix: "run claude once to set it up (log in, accept the theme)"}
	}
	return Check{Name: "claude config", OK: true, Detail: dir}
}

// Layout checks what a layout needs of this machine: each agent CLI other
// than Claude Code its members are (found, a version teamctl's tests ran
// on), and that Claude Code trusts every Claude Code member's folder (else
// it stops at its trust dialog); and of each of its other hosts (Hosts).
func Layout(ctx context.Context, l *layouts.Layout) []Check {
	out := agentChecks(ctx, l)
	out = append(out, Hosts(ctx, l)...)
	for _, ft := range trust.Of(ctx, l) {
		c := Check{Name: "trust " + ft.Member, OK: true}
		switch {
		case ft.Err != nil:
			c.Warn, c.Detail = true, ft.Err.Error()
		case ft.Trusted:
			c.Detail = ft.Dir + " is trusted"
		case ft.ByUp:
			c.Detail = ft.Dir + " is not trusted yet; up records it as trusted (trust: true)"
		default:
			c.Warn = true
			c.Detail = ft.Dir + " is not trusted by Claude Code: the member will stop at the trust dialog"
			c.Fix = fmt.Sprintf("start claude once in %s and trust it, or (for worktrees) set trust: true in the layout; trust is kept in %s", ft.Dir, ft.Config)
		}
		out = append(out, c)
	}
	return out
}

// agents are the other agent CLIs doctor knows: how to install one, the
// versions teamctl's tests ran on, and the version in its --version.
var agents = map[string]struct {
	install string
	tested  func() []string
	version func(string) string
}{
	layouts.AgentCodex:  {"npm install -g @openai/codex@", codexcli.TestedVersions, codexcli.Version},
	layouts.AgentGemini: {"npm install -g @google/gemini-cli@", geminicli.TestedVersions, geminicli.Version},
}

// agentChecks checks each agent CLI kind the layout's members are, once.
func agentChecks(ctx context.Context, l *layouts.Layout) []Check {
	var out []Check
	seen := map[string]bool{}
	for _, m := range l.Members {
		kind := m.OtherAgent()
		if kind == "" || seen[kind] || m.Host != "" {
			continue
		}
		seen[kind] = true
		a := agents[kind]
		tested := a.tested()
		fix := a.install + newest(tested) + " (or set agents." + kind + ".command)"
		path, err := launch.ResolveAgent(l, kind)
		if err != nil {
			out = append(out, Check{Name: kind, Detail: err.Error(), Fix: fix})
			continue
		}
		v, err := runVersion(ctx, path, append(slices.Clone(l.Agents[kind].Args), "--version")...)
		if err != nil {
			out = append(out, Check{Name: kind, Detail: fmt.Sprintf("%s --version failed: %v", path, err), Fix: fix})
			continue
		}
		c := Check{Name: kind, OK: true, Detail: fmt.Sprintf("%s (%s), a version teamctl's tests ran on", v, path)}
		if !slices.Contains(tested, a.version(v)) {
			c.Warn = true
			c.Detail = fmt.Sprintf("%s (%s), not a version teamctl's tests ran on (%s)", v, path, strings.Join(tested, ", "))
			c.Fix = "its screens and files may differ in other versions: " + a.install + newest(tested)
		}
		out = append(out, c)
	}
	return out
}
