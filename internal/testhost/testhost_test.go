package testhost

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostReachableOverSSH: a command runs on the host over ssh in batch mode
// with strict host-key checking, the host sees its own namespace address, and
// a known_hosts holding another key is refused (checking is on, not faked).
func TestHostReachableOverSSH(t *testing.T) {
	h := Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	argv := append(h.SSH(), "ip", "-4", "-o", "addr", "show")
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("ssh: %v: %s", err, out)
	}
	if !strings.Contains(string(out), h.Addr+"/30") {
		t.Fatalf("the command did not run in the namespace; addresses:\n%s", out)
	}

	// The host's own HOME and tmux folder, not this machine's.
	argv = append(h.SSH(), `echo "$HOME $TMUX_TMPDIR"`)
	out, err = exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	if got, want := strings.TrimSpace(string(out)), h.Home+" "+h.TmuxTmpdir(); err != nil || got != want {
		t.Fatalf("the host's HOME and TMUX_TMPDIR = %q (%v), want %q", got, err, want)
	}

	// Another host key in known_hosts: ssh must refuse.
	other := t.TempDir() + "/k"
	if err := exec.CommandContext(ctx, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other).Run(); err != nil {
		t.Fatal(err)
	}
	pub, _ := os.ReadFile(other + ".pub")
	f := strings.Fields(string(pub))
	if err := os.WriteFile(h.KnownHosts, []byte(h.Addr+" "+f[0]+" "+f[1]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	argv = append(h.SSH(), "true")
	out, err = exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "HOST IDENTIFICATION HAS CHANGED") {
		t.Fatalf("a wrong host key was not refused: %v: %s", err, out)
	}
}

// TestCleanupRemovesNamespaceAndSshd: after the subtest ends its namespace is
// gone and its sshd has exited.
func TestCleanupRemovesNamespaceAndSshd(t *testing.T) {
	var name string
	var pid int
	t.Run("host", func(t *testing.T) {
		h := Start(t)
		name, pid = h.Name, h.SshdPid()
	})
	if name == "" {
		t.Skip("no host was made")
	}
	out, err := exec.Command("ip", "netns", "list").CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Fields(l + " x")[0] == name {
			t.Fatalf("namespace %s still there", name)
		}
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("sshd %d still running", pid)
	}
}
