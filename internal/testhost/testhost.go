// Package testhost gives a test a remote host on this machine: a network
// namespace the test makes, with Debian's openssh-server listening on the
// namespace's own address with its own host key, a key for the test's user in
// its authorized keys, that host key trusted in a test known_hosts, and an ssh
// config in the test's temp HOME. Nothing of the user's ~/.ssh is read or
// changed. Cleanup ends only the sshd it started (by its pid) and removes the
// namespace (its veth pair goes with it).
//
// It needs root (as CI runs). It skips with the reason under -short and where
// namespaces cannot be made; with CI=true it fails instead of skipping.
package testhost

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Host is one test host.
type Host struct {
	Name       string // namespace name, also the ssh config's Host alias
	Addr       string // the namespace's address (sshd listens there, port 22)
	Dest       string // ssh destination: the alias in ConfigFile
	ConfigFile string // ssh client config; pass as ssh -F (ssh reads ~ from passwd, not $HOME)
	KnownHosts string // the test known_hosts trusting only this host's key
	Identity   string // the test user's private key
	Home       string // the test user's HOME on the host (a temp folder; sshd sets it)
	Gateway    string // this machine's address on the host's link: what the host reaches here
	sshdPid    int
	veth       string // this machine's end of the host's link
}

var seq atomic.Int32

const sshdPath = "/usr/sbin/sshd"

func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("testhost: %s (required with CI=true)", msg)
	}
	t.Skipf("testhost: %s", msg)
}

func run(ctx context.Context, name string, args ...string) error {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// tb is what making a host asks of a test (testing.TB has it), or of a
// benchmark (New's lone).
type tb interface {
	Helper()
	TempDir() string
	Cleanup(func())
	Errorf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// Start makes a host for t; everything it made is removed when t ends.
func Start(t testing.TB) *Host {
	t.Helper()
	if testing.Short() {
		t.Skip("testhost: network namespaces with a real sshd are not made under -short")
	}
	if err := Available(); err != nil {
		unavailable(t, "%v", err)
	}
	return start(t, func(format string, args ...any) { unavailable(t, format, args...) })
}

// Available says why no host can be made here (nil: one can).
func Available() error {
	if os.Geteuid() != 0 {
		return errors.New("making network namespaces needs root")
	}
	if _, err := os.Stat(sshdPath); err != nil {
		return fmt.Errorf("%s missing (apt-get install openssh-server): %w", sshdPath, err)
	}
	return nil
}

// New makes a host outside a test (a benchmark's); end removes all it made.
func New() (h *Host, end func(), err error) {
	if err := Available(); err != nil {
		return nil, func() {}, err
	}
	l := &lone{}
	end = l.end
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(loneFailed)
			if !ok {
				panic(r)
			}
			end()
			h, err = nil, errors.New(string(f))
		}
	}()
	h = start(l, l.Fatalf)
	return h, end, nil
}

// lone is tb outside a test: a failure panics (New recovers it), clean-ups
// run at end, last first.
type lone struct {
	dirs     []string
	cleanups []func()
}

type loneFailed string

func (l *lone) Helper() {}
func (l *lone) TempDir() string {
	d, err := os.MkdirTemp("", "testhost-")
	if err != nil {
		l.Fatal(err)
	}
	l.dirs = append(l.dirs, d)
	return d
}
func (l *lone) Cleanup(f func()) { l.cleanups = append(l.cleanups, f) }
func (l *lone) Errorf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "testhost: "+format+"\n", args...)
}
func (l *lone) Fatal(args ...any)                 { panic(loneFailed(fmt.Sprint(args...))) }
func (l *lone) Fatalf(format string, args ...any) { panic(loneFailed(fmt.Sprintf(format, args...))) }
func (l *lone) end() {
	for i := len(l.cleanups) - 1; i >= 0; i-- {
		l.cleanups[i]()
	}
	l.cleanups = nil
	for _, d := range l.dirs {
		os.RemoveAll(d)
	}
	l.dirs = nil
}

// start makes the host; unavail fails for want of what the machine lacks.
func start(t tb, unavail func(format string, args ...any)) *Host {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	n := seq.Add(1)
	// Names stay within 15 bytes (interface name limit); the /30 is private
	// and unique per test binary and host within it.
	id := fmt.Sprintf("%d%d", os.Getpid()%10000, n)
	h := &Host{Name: "tch" + id}
	vethOut, vethIn := "tcva"+id, "tcvb"+id
	h.veth = vethOut
	third := (os.Getpid()%200)*1 + 20
	fourth := int(n%63) * 4
	hostSide := fmt.Sprintf("10.213.%d.%d", third, fourth+1)
	h.Addr = fmt.Sprintf("10.213.%d.%d", third, fourth+2)
	h.Gateway = hostSide

	if err := run(ctx, "ip", "netns", "add", h.Name); err != nil {
		unavail("cannot make a network namespace: %v", err)
	}
	t.Cleanup(func() {
		c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := run(c, "ip", "netns", "del", h.Name); err != nil {
			t.Errorf("testhost cleanup: %v", err)
		}
	})
	for _, argv := range [][]string{
		{"ip", "link", "add", vethOut, "type", "veth", "peer", "name", vethIn},
		{"ip", "link", "set", vethIn, "netns", h.Name},
		{"ip", "addr", "add", hostSide + "/30", "dev", vethOut},
		{"ip", "link", "set", vethOut, "up"},
		{"ip", "netns", "exec", h.Name, "ip", "addr", "add", h.Addr + "/30", "dev", vethIn},
		{"ip", "netns", "exec", h.Name, "ip", "link", "set", vethIn, "up"},
		{"ip", "netns", "exec", h.Name, "ip", "link", "set", "lo", "up"},
	} {
		if err := run(ctx, argv[0], argv[1:]...); err != nil {
			unavail("cannot set up the namespace's link: %v", err)
		}
	}

	dir := t.TempDir()
	srv := filepath.Join(dir, "server")
	home := filepath.Join(dir, "home")
	h.Home = filepath.Join(dir, "remote-home")
	for _, d := range []string{srv, filepath.Join(home, ".ssh"), h.Home, h.TmuxTmpdir()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	hostKey := filepath.Join(srv, "ssh_host_ed25519_key")
	h.Identity = filepath.Join(home, ".ssh", "id_ed25519")
	for _, key := range []string{hostKey, h.Identity} {
		if err := run(ctx, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "teamctl-test", "-f", key); err != nil {
			t.Fatal(err)
		}
	}
	pub, err := os.ReadFile(h.Identity + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	authorized := filepath.Join(srv, "authorized_keys")
	if err := os.WriteFile(authorized, pub, 0o600); err != nil {
		t.Fatal(err)
	}
	hostPub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(hostPub))
	h.KnownHosts = filepath.Join(home, ".ssh", "known_hosts")
	if err := os.WriteFile(h.KnownHosts, []byte(h.Addr+" "+f[0]+" "+f[1]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The privilege-separation folder sshd insists on; Debian's package makes
	// it only through its service unit.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatal(err)
	}
	sshdConfig := filepath.Join(srv, "sshd_config")
	// The user is root (the test runs as root); its keys come from the test's
	// file only. StrictModes is off because the test's temp folders are not
	// the user's home; passwords and keyboard-interactive are off.
	conf := strings.Join([]string{
		"ListenAddress " + h.Addr,
		"Port 22",
		"HostKey " + hostKey,
		"PidFile none",
		"AuthorizedKeysFile " + authorized,
		"StrictModes no",
		"PermitRootLogin prohibit-password",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"UsePAM no",
		"AllowUsers root",
		// The host's own HOME, tmux sockets and state, as another machine
		// has: the namespace shares this machine's files, and the test's
		// user (root) has this machine's home in the password database.
		// sshd sets these after its defaults, so they win.
		"SetEnv HOME=" + h.Home + " TMUX_TMPDIR=" + h.TmuxTmpdir() + " XDG_STATE_HOME=" + filepath.Join(h.Home, ".local", "state") +
			" XDG_CONFIG_HOME=" + filepath.Join(h.Home, ".config") + " CLAUDE_CONFIG_DIR=" + filepath.Join(h.Home, ".claude"),
		"LogLevel ERROR",
		"",
	}, "\n")
	if err := os.WriteFile(sshdConfig, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run(ctx, sshdPath, "-t", "-f", sshdConfig); err != nil {
		t.Fatalf("testhost: sshd refuses the test config: %v", err)
	}
	// ip netns exec execs sshd, so the pid is sshd's own.
	cmd := exec.Command("ip", "netns", "exec", h.Name, sshdPath, "-D", "-e", "-f", sshdConfig)
	var logBuf strings.Builder
	cmd.Stderr = &logWriter{b: &logBuf}
	// A session of a connection that outlives the test (a shared one's
	// master, ControlPersist) holds sshd's stderr: Wait must not wait for it.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h.sshdPid = cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // the process we started, by its pid
		<-done
	})

	h.ConfigFile = filepath.Join(home, ".ssh", "config")
	h.Dest = h.Name
	client := strings.Join([]string{
		"Host " + h.Name,
		"  HostName " + h.Addr,
		"  User root",
		"  IdentityFile " + h.Identity,
		"  IdentitiesOnly yes",
		"  UserKnownHostsFile " + h.KnownHosts,
		"  GlobalKnownHostsFile /dev/null",
		"  StrictHostKeyChecking yes",
		"  BatchMode yes",
		"",
	}, "\n")
	if err := os.WriteFile(h.ConfigFile, []byte(client), 0o600); err != nil {
		t.Fatal(err)
	}

	// Ready when sshd accepts a connection on the namespace address.
	for {
		conn, err := net.DialTimeout("tcp", net.JoinHostPort(h.Addr, "22"), time.Second)
		if err == nil {
			conn.Close()
			break
		}
		select {
		case werr := <-done:
			t.Fatalf("testhost: sshd ended: %v: %s", werr, logBuf.String())
		case <-ctx.Done():
			t.Fatalf("testhost: sshd not listening on %s: %v", h.Addr, errors.Join(err, ctx.Err()))
		case <-time.After(20 * time.Millisecond):
		}
	}
	return h
}

// SSH is the ssh argv (without the remote command) reaching h with the test's
// config: ssh -F CONFIG DEST.
func (h *Host) SSH() []string { return []string{"ssh", "-F", h.ConfigFile, h.Dest} }

// TmuxTmpdir is the host's TMUX_TMPDIR (under its HOME): its tmux servers'
// sockets are there, apart from this machine's.
func (h *Host) TmuxTmpdir() string { return filepath.Join(h.Home, "tmp") }

// SshdPid is the pid of the sshd the harness started.
func (h *Host) SshdPid() int { return h.sshdPid }

type logWriter struct{ b *strings.Builder }

func (w *logWriter) Write(p []byte) (int, error) {
	if w.b.Len() < 1<<16 {
		w.b.Write(p)
	}
	return len(p), nil
}

// SetLink takes the host's link down (up false) or up again: the host and
// its sshd run on, unreached, as behind a cable pulled out.
func (h *Host) SetLink(t testing.TB, up bool) {
	t.Helper()
	state := "down"
	if up {
		state = "up"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := run(ctx, "ip", "link", "set", h.veth, state); err != nil {
		t.Fatalf("testhost: %v", err)
	}
}
