package doctor

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/sshconn"
	"github.com/teamctl/teamctl/tmux"
)

// hostWait bounds each command doctor runs on a host.
const hostWait = 20 * time.Second

// Hosts checks each host of the layout's hosts: as the supervisor will
// reach it: ssh in batch mode (no prompt; the user's config, agent and
// known_hosts), then on it tmux 3.2 or newer, git, the repository at its
// root, and Claude Code when a Claude Code member runs there. The checks of
// a host share one ssh connection. A host not reached is one failed check
// (its other checks would say nothing more).
func Hosts(ctx context.Context, l *layouts.Layout) []Check {
	names := make([]string, 0, len(l.Hosts))
	for n := range l.Hosts {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Check
	for _, name := range names {
		out = append(out, hostChecks(ctx, l, l.Hosts[name])...)
	}
	return out
}

func hostChecks(ctx context.Context, l *layouts.Layout, hl layouts.Host) []Check {
	name := "host " + hl.Name
	dir, err := os.MkdirTemp("", "teamctl-ssh-") // the shared connection's socket: short, 0700, ours
	if err != nil {
		return []Check{{Name: name, Detail: err.Error()}}
	}
	defer os.RemoveAll(dir)
	h := sshconn.New(hl.SSH, dir)
	defer h.Close(ctx)
	if _, err := h.Run(ctx, hostWait, nil, "true"); err != nil {
		return []Check{{Name: name, Detail: err.Error(),
			Fix: fmt.Sprintf("`ssh -o BatchMode=yes %s true` must work without a prompt: the host's key in your known_hosts, your key in its authorized_keys (ssh-copy-id) or your agent", hl.SSH)}}
	}
	out := []Check{{Name: name, OK: true, Detail: "reached with ssh as " + hl.SSH}}

	c := Check{Name: name + " tmux"}
	if v, err := h.Run(ctx, hostWait, nil, "tmux", "-V"); err != nil {
		c.Detail = err.Error()
		c.Fix = fmt.Sprintf("install tmux %d.%d or newer on %s", tmux.MinMajor, tmux.MinMinor, hl.Name)
	} else if tv, err := tmux.ParseVersion(v); err != nil || !tv.AtLeast(tmux.MinMajor, tmux.MinMinor) {
		c.Detail = fmt.Sprintf("%s there; teamctl needs %d.%d or newer", strings.TrimSpace(v), tmux.MinMajor, tmux.MinMinor)
		c.Fix = fmt.Sprintf("install tmux %d.%d or newer on %s", tmux.MinMajor, tmux.MinMinor, hl.Name)
	} else {
		c.OK, c.Detail = true, tv.Raw
	}
	out = append(out, c)

	c = Check{Name: name + " git"}
	if v, err := h.Run(ctx, hostWait, nil, "git", "--version"); err != nil {
		c.Detail, c.Fix = err.Error(), "install git on "+hl.Name
	} else {
		c.OK, c.Detail = true, strings.TrimSpace(v)
	}
	out = append(out, c)

	c = Check{Name: name + " repository"}
	root := sshconn.HomePath(hl.Root)
	if _, err := h.RunLine(ctx, hostWait, "git -C "+root+" rev-parse --git-dir"); err != nil {
		c.Detail = fmt.Sprintf("no git repository at %s on %s: %v", hl.Root, hl.Name, err)
		c.Fix = fmt.Sprintf("clone the repository to %s on %s, or set hosts.%s.root to where it is", hl.Root, hl.Name, hl.Name)
	} else {
		c.OK, c.Detail = true, "a git repository at "+hl.Root
	}
	out = append(out, c)

	if claudeOn(l, hl.Name) {
		c = Check{Name: name + " claude"}
		if v, err := h.Run(ctx, hostWait, nil, "claude", "--version"); err != nil {
			c.Detail, c.Fix = err.Error(), "install Claude Code on "+hl.Name+" (npm install -g @anthropic-ai/claude-code)"
		} else {
			c.OK, c.Detail = true, strings.TrimSpace(v)
		}
		out = append(out, c)
	}
	return out
}

// claudeOn reports whether a Claude Code member runs on host.
func claudeOn(l *layouts.Layout, host string) bool {
	for _, m := range l.Members {
		if m.Host == host && m.IsClaude() {
			return true
		}
	}
	return false
}
