package launch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/teamctl/teamctl/layouts"
)

// ResolvePrograms finds every program the layout launches, so that `up` fails
// before it creates anything when one is missing. override is TEAMCTL_CLAUDE.
func ResolvePrograms(l *layouts.Layout, override string) (Programs, error) {
	p := Programs{Plain: map[string]string{}}
	if l.HasLead() { // a team of plain processes needs no Claude Code
		path, err := ResolveClaude(l, override)
		if err != nil {
			return p, err
		}
		p.Claude = path
	}
	for _, m := range l.Members {
		if m.IsClaude() {
			continue
		}
		if m.Host != "" {
			// Found on its host, by its tmux there, as that host's PATH has it.
			p.Plain[m.Name] = m.Command[0]
			continue
		}
		if kind := m.OtherAgent(); kind != "" {
			prog := l.Agents[kind].Command
			path, err := resolve(prog, m.Cwd)
			if err != nil {
				return p, fmt.Errorf("member %s: %s's program %q not found: %w; install it (see docs/%s.md) or set agents.%s.command in the layout", m.Name, kind, prog, err, kind, kind)
			}
			p.Plain[m.Name] = path
			continue
		}
		path, err := resolve(m.Command[0], m.Cwd)
		if err != nil {
			return p, fmt.Errorf("member %s: command %q not found: %w", m.Name, m.Command[0], err)
		}
		p.Plain[m.Name] = path
	}
	return p, nil
}

// ResolveClaude finds the layout's Claude Code program (claude.command, or
// override: TEAMCTL_CLAUDE), as up launches it.
func ResolveClaude(l *layouts.Layout, override string) (string, error) {
	claude := l.Claude.Command
	if override != "" {
		claude = override
	}
	path, err := resolve(claude, l.Root)
	if err != nil {
		hint := "set claude.command in the layout or TEAMCTL_CLAUDE to where it is"
		if filepath.Base(claude) == "claude" {
			hint = "install Claude Code with `npm install -g @anthropic-ai/claude-code`, or " + hint
		}
		//lint:ignore ST1005 Claude Code is a name
		return "", fmt.Errorf("Claude Code program %q not found: %w; %s", claude, err, hint)
	}
	return path, nil
}

// resolve finds prog the way a shell started in dir would: through PATH for a
// bare name, relative to dir for a relative path.
func resolve(prog, dir string) (string, error) {
	if strings.ContainsRune(prog, '/') {
		if !filepath.IsAbs(prog) {
			prog = filepath.Join(dir, prog)
		}
		fi, err := os.Stat(prog)
		if err != nil {
			return "", err
		}
		if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			return "", fmt.Errorf("%s is not an executable file", prog)
		}
		return prog, nil
	}
	return exec.LookPath(prog)
}

// ResolveAgent finds the program of the agent CLI kind (Codex, Gemini) as
// up launches it: agents.KIND.command, found from the layout's root.
func ResolveAgent(l *layouts.Layout, kind string) (string, error) {
	prog := l.Agents[kind].Command
	path, err := resolve(prog, l.Root)
	if err != nil {
		return "", fmt.Errorf("%s's program %q not found: %w", kind, prog, err)
	}
	return path, nil
}
