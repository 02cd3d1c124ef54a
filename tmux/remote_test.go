package tmux

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/testhost"
	"github.com/teamctl/teamctl/sshconn"
)

// TestRemoteServer: a tmux server on another host (a network namespace with a
// real sshd), reached over one shared ssh connection: a batch starts it with
// a secret in a pane's environment that is on no command line there (and no
// file is left on the host), its panes are listed, a control client over ssh
// sees a pane's output and the answer typed into it, and kill-server ends it.
// A host ssh cannot reach is ErrUnreachable, never "no server".
func TestRemoteServer(t *testing.T) {
	h := testhost.Start(t) // skipped under -short and without namespaces; required when CI=true
	ctl := t.TempDir()
	host := sshconn.Host{Dest: h.Dest, Config: h.ConfigFile, ControlDir: ctl}
	s := &Server{Socket: "teamctl-remote", Via: host}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Cleanups run last first: the server ends, then the shared connection
	// (a command after Close would open another that stays a minute).
	t.Cleanup(func() { host.Close(context.Background()) })
	t.Cleanup(func() { s.KillServer(context.Background()) })

	if _, err := s.ListPanes(ctx); !errors.Is(err, ErrNoServer) {
		t.Fatalf("list-panes before the server: %v, want ErrNoServer", err)
	}
	const secret = "s3cret-value-never-on-argv"
	var b Batch
	b.Add("new-session", "-d", "-s", "r", "-x", "80", "-y", "24", "-e", "TOKEN="+secret, "-P", "-F", "#{pane_id}",
		"/bin/sh", "-c", `printf 'ready (y/n) '; read a; echo "got:$a:${#TOKEN}"; read more`)
	out, err := s.StartBatch(ctx, &b)
	if err != nil || len(out) != 1 || !strings.HasPrefix(out[0], "%") {
		t.Fatalf("start batch: %q %v", out, err)
	}
	pane := out[0]
	// The server's socket is the host's (its TMUX_TMPDIR), not this machine's.
	if _, err := os.Stat(filepath.Join(h.TmuxTmpdir(), "tmux-0", "teamctl-remote")); err != nil {
		t.Errorf("no socket in the host's TMUX_TMPDIR: %v", err)
	}
	if _, err := os.Stat(SocketPath("teamctl-remote")); err == nil {
		t.Errorf("a socket here: the server ran on this machine")
	}
	panes, err := s.ListPanes(ctx)
	if err != nil || len(panes) != 1 || panes[0].ID != pane {
		t.Fatalf("list-panes: %+v %v", panes, err)
	}
	if ok, err := s.HasSession(ctx, "r"); !ok || err != nil {
		t.Errorf("has-session r: %v %v", ok, err)
	}
	// No process on the host has the secret on its command line.
	ps, _ := host.Run(ctx, 10*time.Second, nil, "ps", "-eo", "args")
	if strings.Contains(ps, secret) {
		t.Errorf("the secret is on a command line on the host")
	}

	c, err := s.Control(ctx, SessionTarget("r"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := s.Type(ctx, pane, "yes"); err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	for !strings.Contains(seen.String(), "got:yes:") {
		select {
		case n := <-c.Notes():
			if n.Kind == "output" && n.Pane == pane {
				seen.Write(n.Data)
			}
		case <-ctx.Done():
			t.Fatalf("no output through the control client over ssh; seen %q", seen.String())
		}
	}
	if !strings.Contains(seen.String(), "got:yes:26") {
		t.Errorf("the pane's environment: %q", seen.String())
	}
	lines, err := c.Command(ctx, "capture-pane", "-p", "-t", pane)
	if err != nil || !strings.Contains(strings.Join(lines, "\n"), "ready (y/n) yes") {
		t.Errorf("capture over the control client: %q %v", lines, err)
	}

	if err := s.KillServer(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListPanes(ctx); !errors.Is(err, ErrNoServer) {
		t.Errorf("list-panes after kill-server: %v, want ErrNoServer", err)
	}
	if _, err := os.Stat(filepath.Join(h.TmuxTmpdir(), "tmux-0", "teamctl-remote")); err == nil {
		t.Errorf("the socket file is left on the host after kill-server")
	}
	if s.Listening() {
		t.Errorf("listening after kill-server")
	}

	gone := &Server{Socket: "teamctl-remote", Via: sshconn.Host{Dest: "nosuchhost.invalid", Config: h.ConfigFile}}
	_, err = gone.ListPanes(ctx)
	if !errors.Is(err, ErrUnreachable) || errors.Is(err, ErrNoServer) {
		t.Errorf("an unreached host: %v, want ErrUnreachable", err)
	}
	if !gone.Listening() {
		t.Errorf("an unreached host's server reads as gone")
	}
	var xe *exec.ExitError
	if !errors.As(err, &xe) {
		t.Errorf("the error does not say how ssh ended: %v", err)
	}
}
