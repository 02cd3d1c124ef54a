package team

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teamctl/teamctl/launch"
	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/relay"
	"github.com/teamctl/teamctl/sshconn"
	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
	"github.com/teamctl/teamctl/worktrees"
)

// Members on other hosts (docs/hosts.md): each host runs a private tmux
// server of its own for the team (the same socket name, teamctl-<team>,
// under the host's TMUX_TMPDIR), reached with the user's ssh over one shared
// connection; the team's servers are one tmux.Group, a remote pane's ids
// qualified with its host. What crosses: tmux commands (a batch's, with the
// panes' environment, over ssh's stdin, never on a command line) and their
// output; this teamctl, copied once, for a Claude Code member's hooks and
// the relay of the team's files (package relay); git, for a worktree made
// there and its work reviewed here (remotework.go). Not built: Codex and
// Gemini members on other hosts.

// checkRemote refuses what up cannot yet run on another host, before
// anything is made.
func checkRemote(l *layouts.Layout) error {
	remote := l.Remote()
	if len(remote) == 0 {
		return nil
	}
	var bad []string
	for _, m := range remote {
		switch {
		case m.OtherAgent() != "":
			bad = append(bad, fmt.Sprintf("%s (host %s) is a %s member: on another host teamctl runs Claude Code and command: members only, yet", m.Name, m.Host, m.OtherAgent()))
		case m.IsClaude() && !l.HasLead():
			bad = append(bad, fmt.Sprintf("%s (host %s) is a Claude Code member in a team with no lead", m.Name, m.Host))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s: %s; `teamctl doctor %s` checks the hosts (docs/hosts.md)", l.Path, strings.Join(bad, "; "), l.Path)
	}
	if !l.HasLead() && len(remote) == len(l.Members) {
		return fmt.Errorf("%s: every member is on another host: the team needs one member on this machine, where its supervisor follows it", l.Path)
	}
	return nil
}

// hostOf is a host of the team as an sshconn.Host sharing teamctl's
// connections.
func hostOf(dest string) (sshconn.Host, error) {
	dir, err := state.SSHDir()
	if err != nil {
		return sshconn.Host{}, err
	}
	return sshconn.New(dest, dir), nil
}

// groupOf is the team's servers: local, and one on each of hosts.
func groupOf(team string, local *tmux.Server, hosts []state.Host) (*tmux.Group, error) {
	g := &tmux.Group{Server: local, Hosts: map[string]*tmux.Server{}}
	for _, h := range hosts {
		sh, err := hostOf(h.SSH)
		if err != nil {
			return nil, err
		}
		g.Hosts[h.Name] = &tmux.Server{Socket: state.SocketName(team), Via: sh}
	}
	return g, nil
}

// remoteHostsTimeout bounds the commands up runs on a host.
const remoteHostsTimeout = 30 * time.Second

// withHosts makes u's server the team's group when the layout has members
// on other hosts, their roots resolved there. A host not reached is
// recorded without its folder; its members are not started (createRemote
// says so).
func (u *upRun) withHosts(ctx context.Context) error {
	remote := u.l.Remote()
	if len(remote) == 0 {
		return nil
	}
	var local *tmux.Server
	switch s := u.srv.(type) {
	case *tmux.Server:
		local = s
	case *tmux.Group:
		local = s.Server
	default:
		return errors.New("members on other hosts need the team's real tmux server")
	}
	used := map[string]bool{}
	for _, m := range remote {
		used[m.Host] = true
	}
	u.hosts = nil
	u.hostErr = map[string]error{}
	for _, name := range slices.Sorted(maps.Keys(used)) {
		lh := u.l.Hosts[name]
		h := state.Host{Name: name, SSH: lh.SSH, Root: lh.Root}
		sh, err := hostOf(lh.SSH)
		if err != nil {
			return err
		}
		out, err := sh.RunLine(ctx, remoteHostsTimeout, "cd "+sshconn.HomePath(lh.Root)+" && pwd -P")
		if dir := strings.TrimSpace(out); err == nil && path.IsAbs(dir) {
			h.Dir = dir
		} else if err == nil {
			err = fmt.Errorf("%s: the host's shell said %q of the root's folder", name, dir)
		}
		if err == nil && hasClaude(u.l, name) {
			h.Teamctl, err = u.installTeamctl(ctx, sh)
		}
		if err != nil {
			u.hostErr[name] = err
		}
		u.hosts = append(u.hosts, h)
	}
	g, err := groupOf(u.l.Team, local, u.hosts)
	if err != nil {
		return err
	}
	u.srv = g
	return nil
}

// local and remote split launches by where they run.
func splitRemote(launches []launch.Launch) (local, remote []launch.Launch) {
	for _, x := range launches {
		if x.Member.Host != "" {
			remote = append(remote, x)
		} else {
			local = append(local, x)
		}
	}
	return local, remote
}

// createRemote opens each remote launch's pane on its host's server (started
// there when it does not run), one batch a host, and records them. A host
// that was not reached, or refused, leaves its members out and says so; the
// rest of the team is up all the same.
func (u *upRun) createRemote(ctx context.Context, launches []launch.Launch) error {
	if len(launches) == 0 {
		return nil
	}
	g, ok := u.srv.(*tmux.Group)
	if !ok {
		return errors.New("members on other hosts, but no servers for them")
	}
	u.st.Hosts = u.hosts
	byHost := map[string][]launch.Launch{}
	var order []string
	for _, x := range launches {
		if byHost[x.Member.Host] == nil {
			order = append(order, x.Member.Host)
		}
		byHost[x.Member.Host] = append(byHost[x.Member.Host], x)
	}
	for _, host := range order {
		xs := byHost[host]
		err := u.hostErr[host]
		if err == nil && hasClaude(u.l, host) {
			// Its Claude Code members need the team's config there before
			// they start, and their prompts.
			err = u.pushRelay(ctx, host)
		}
		if err == nil {
			err = u.createOn(ctx, g, host, xs)
		}
		if err != nil {
			var names []string
			for _, x := range xs {
				names = append(names, x.Member.Name)
			}
			u.res.NotStarted = append(u.res.NotStarted, names...)
			u.note("host %s: %s not started: %v", host, strings.Join(names, ", "), err)
		}
	}
	return state.Save(u.st)
}

// createOn opens the panes of xs on host's server.
func (u *upRun) createOn(ctx context.Context, g *tmux.Group, host string, xs []launch.Launch) error {
	srv := g.On(host)
	h, _ := u.st.Host(host)
	cctx, cancel := context.WithTimeout(ctx, remoteHostsTimeout)
	defer cancel()
	_, err := srv.ListPanes(cctx)
	running := err == nil
	if err != nil && !errors.Is(err, tmux.ErrNoServer) {
		return err
	}
	var b tmux.Batch
	if !running {
		b.Add("set-option", "-g", "remain-on-exit", "on")
		b.Add("set-option", "-g", "pane-border-status", "top")
		b.Add("set-option", "-g", "pane-border-format", " #{?@teamctl-member,#{@teamctl-member},#{pane_title}} ")
	}
	for i := range xs {
		// Its folder there: below the host's root as the host resolved it,
		// or in its worktree there.
		top, err := u.remoteWorktree(cctx, h, xs[i])
		if err != nil {
			return err
		}
		xs[i].Cwd = path.Join(top, xs[i].Member.Cwd)
		x, cwd := xs[i], xs[i].Cwd
		var args []string
		if i == 0 && !running {
			args = []string{"new-session", "-d", "-s", u.l.Team, "-n", x.Member.Name, "-x", "200", "-y", "50"}
		} else {
			args = []string{"new-window", "-d", "-t", tmux.SessionTarget(u.l.Team) + ":", "-n", x.Member.Name}
		}
		args = append(args, "-c", tmux.EscapeFormat(cwd))
		args = append(args, launch.EnvFlags(x.Env)...)
		args = append(args, "-P", "-F", idFormat)
		b.Add(append(args, tmux.CommandArgs(u.argv(x))...)...)
	}
	var out []string
	if running {
		out, err = srv.RunBatch(cctx, &b)
	} else {
		out, err = srv.StartBatch(cctx, &b)
	}
	now := u.w.clock.Now().UTC()
	for i, line := range out {
		if i < len(xs) {
			if rerr := u.recordRemote(xs[i], host, line, now); rerr != nil && err == nil {
				err = rerr
			}
		}
	}
	if err == nil && len(out) != len(xs) {
		err = fmt.Errorf("tmux there printed %d pane IDs for %d new panes", len(out), len(xs))
	}
	if err != nil {
		return err
	}
	var d tmux.Batch
	for _, x := range xs {
		if m, ok := u.st.Member(x.Member.Name); ok {
			id, _, _ := tmux.SplitQualified(m.Pane)
			for _, c := range launch.Decoration(id, m.Name, x.Member.Color) {
				d.Add(c...)
			}
		}
	}
	_, err = srv.RunBatch(cctx, &d)
	return err
}

// recordRemote notes a member launched on host from tmux's "pane pid
// window" line there: its ids qualified with the host.
func (u *upRun) recordRemote(x launch.Launch, host, line string, now time.Time) error {
	f := strings.Split(line, "\x1f")
	if len(f) != 3 {
		return fmt.Errorf("unexpected tmux output %q for %s", line, x.Member.Name)
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil {
		return fmt.Errorf("unexpected tmux output %q for %s", line, x.Member.Name)
	}
	u.recordMember(x, state.Member{
		Name: x.Member.Name, Role: x.Role, Origin: state.OriginLayout, Pane: tmux.Qualify(f[0], host), Window: tmux.Qualify(f[2], host),
		PID: pid, Host: host, SessionID: x.SessionID, Cwd: x.Cwd, Argv: x.Argv, Env: x.Env, Restart: x.Member.Restart, Digest: x.Digest, StartedAt: now,
	}, now)
	return nil
}

// downHosts ends the team's server on each host (tmux ends its panes'
// programs with SIGHUP) and says what it could not end where.
func downHosts(ctx context.Context, g *tmux.Group, st *state.Team, progress io.Writer) (left []string) {
	for _, host := range g.HostNames() {
		hctx, cancel := context.WithTimeout(ctx, remoteHostsTimeout)
		err := g.Hosts[host].KillServer(hctx)
		cancel()
		if err == nil {
			if progress != nil {
				fmt.Fprintf(progress, "host %s: the team's tmux server there ended\n", host)
			}
			continue
		}
		var names []string
		for _, m := range st.Members {
			if m.Host == host {
				names = append(names, m.Name)
			}
		}
		h, _ := st.Host(host)
		left = append(left, fmt.Sprintf("host %s: the team's tmux server there was not ended (%v): %s may still run there; once it is reached, `ssh %s tmux -L %s kill-server` ends them",
			host, err, strings.Join(names, ", "), h.SSH, state.SocketName(st.Team)))
	}
	return left
}

// onThisMachine reports whether pane (an id of the team's servers) is on this
// machine: only then is its pid a process here, which teamctl may signal.
func onThisMachine(pane string) bool {
	_, host, _ := tmux.SplitQualified(pane)
	return host == ""
}

// hasClaude reports whether a Claude Code member of l runs on host.
func hasClaude(l *layouts.Layout, host string) bool {
	for _, m := range l.Remote() {
		if m.Host == host && m.IsClaude() {
			return true
		}
	}
	return false
}

// installTeamctl copies this teamctl to the host, once per content (its
// hash in the name), into the host's teamctl state folder (0700), written
// under a temporary name, checked and renamed; it returns its path there.
// The host must be of this machine's kind (Linux, the same processor).
func (u *upRun) installTeamctl(ctx context.Context, sh sshconn.Host) (string, error) {
	self, err := u.w.teamctl()
	if err != nil {
		return "", err
	}
	f, err := os.Open(self)
	if err != nil {
		return "", fmt.Errorf("teamctl for the host: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("teamctl for the host: %w", err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	machine, err := sh.RunLine(ctx, remoteHostsTimeout, "uname -sm")
	if err != nil {
		return "", err
	}
	if want := unameOf(runtime.GOOS, runtime.GOARCH); strings.TrimSpace(machine) != want {
		return "", fmt.Errorf("%s is %q, this teamctl is built for %q: its Claude Code members need teamctl there (for their hooks and the relay)", sh.Dest, strings.TrimSpace(machine), want)
	}
	// The folder and the name are fixed words: nothing of the user's is in
	// this line.
	dir := `"${XDG_STATE_HOME:-$HOME/.local/state}/teamctl/.bin"`
	name := "teamctl-" + sum[:16]
	out, err := sh.RunLine(ctx, remoteHostsTimeout, `d=`+dir+`; f="$d/`+name+`"; if [ -x "$f" ]; then printf '%s\n' "$f"; fi`)
	if err != nil {
		return "", err
	}
	if p := strings.TrimSpace(out); path.IsAbs(p) {
		return p, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	line := `set -e; umask 077; d=` + dir + `; mkdir -p "$d"; chmod 700 "$d"; t="$d/.` + name + `.$$"; cat > "$t"; ` +
		`if [ "$(sha256sum "$t" | cut -c1-64)" != ` + sum + ` ]; then rm -f "$t"; echo "the copy does not match" >&2; exit 3; fi; ` +
		`chmod 700 "$t"; mv -f "$t" "$d/` + name + `"; printf '%s\n' "$d/` + name + `"`
	out, err = sh.RunLineInput(ctx, 5*time.Minute, f, line)
	if err != nil {
		return "", fmt.Errorf("copy teamctl to %s: %w", sh.Dest, err)
	}
	p := strings.TrimSpace(out)
	if !path.IsAbs(p) {
		return "", fmt.Errorf("copy teamctl to %s: the host said %q of where it is", sh.Dest, p)
	}
	u.progress("host: teamctl copied to %s:%s", sh.Dest, p)
	return p, nil
}

// unameOf is what `uname -sm` says on a machine of goos and goarch.
func unameOf(goos, goarch string) string {
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686", "arm": "armv7l"}[goarch]
	if arch == "" {
		arch = goarch
	}
	kernel := map[string]string{"linux": "Linux", "darwin": "Darwin", "freebsd": "FreeBSD"}[goos]
	return kernel + " " + arch
}

// planned is the team's launch plan (launch.Plan), each member on another
// host planned with that host's programs: Claude Code as the layout names
// it (found there), and teamctl's copy there for its hooks.
func (u *upRun) planned(leadSession string) ([]launch.Launch, error) {
	plan, err := launch.Plan(u.l, u.progs, leadSession)
	if err != nil || len(u.hosts) == 0 {
		return plan, err
	}
	for _, h := range u.hosts {
		progs := u.progs
		progs.Claude, progs.Teamctl = u.l.Claude.Command, h.Teamctl
		there, err := launch.Plan(u.l, progs, leadSession)
		if err != nil {
			return nil, err
		}
		for i := range plan {
			if plan[i].Member.Host == h.Name && there[i].Member.Name == plan[i].Member.Name {
				plan[i] = there[i]
			}
		}
	}
	return plan, nil
}

// pushRelay carries the team's files to host once (package relay), up
// waiting: its Claude Code members find their team's config there when
// they start, and their first prompts in their mailboxes.
func (u *upRun) pushRelay(ctx context.Context, host string) error {
	h, _ := u.st.Host(host)
	if h.Teamctl == "" || u.st.ClaudeTeam == "" {
		return nil
	}
	sh, err := hostOf(h.SSH)
	if err != nil {
		return err
	}
	var owned []string
	for _, m := range u.l.Remote() {
		if m.Host == host {
			owned = append(owned, m.Name)
		}
	}
	return relay.OverSSH(ctx, sh, h.Teamctl, u.l.Team, relay.Options{ConfigDir: u.st.ClaudeConfig, ClaudeTeam: u.st.ClaudeTeam,
		Hub: true, Owned: owned, Once: true}, remoteHostsTimeout)
}

// remoteWorktree is the folder x works in on host h: its worktree there,
// made with git over ssh when the layout wants one (and recorded), else
// the host's root.
func (u *upRun) remoteWorktree(ctx context.Context, h state.Host, x launch.Launch) (string, error) {
	m := x.Member
	if m.Worktree == nil {
		return h.Dir, nil
	}
	sh, err := hostOf(h.SSH)
	if err != nil {
		return "", err
	}
	branch := m.Worktree.Branch
	if branch == "" {
		branch = "teamctl/" + u.l.Team + "/" + m.Name
	}
	repo := worktrees.RemoteRepo{Host: sh, Name: h.Name, Dir: h.Dir}
	wt, err := repo.EnsureRemote(ctx, u.l.Team, m.Name, branch, m.Worktree.Base)
	if err != nil {
		return "", fmt.Errorf("member %s: %w", m.Name, err)
	}
	if _, ok := u.st.RemoteWorktree(m.Name); !ok && wt.Created {
		u.st.RemoteWorktrees = append(u.st.RemoteWorktrees, state.RemoteWorktree{
			Member: m.Name, Host: h.Name, Path: wt.Path, Main: h.Dir, Branch: wt.Branch, Base: wt.Base,
			CreatedBranch: wt.CreatedBranch, CreatedAt: u.w.clock.Now().UTC(),
		})
		u.progress("%-16s worktree %s:%s (branch %s)", m.Name, h.Name, wt.Path, wt.Branch)
	}
	return wt.Path, nil
}
