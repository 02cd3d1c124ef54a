package tmux

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
)

// testServer starts nothing yet: on the test's own socket in the package's
// TMUX_TMPDIR (TestMain's), it kills the server by its socket at the end. It
// sets no variable, so the test may run in parallel with the others.
func testServer(t *testing.T, socket string) *Server {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	s := &Server{Socket: socket}
	t.Cleanup(func() { s.KillServer(context.Background()) })
	return s
}

// testServerOwnTmp is testServer with a TMPDIR of the test's own (where
// command files go), returned so that the test can see none is left behind;
// a test that uses it cannot run in parallel.
func testServerOwnTmp(t *testing.T, socket string) (*Server, string) {
	t.Helper()
	s := testServer(t, socket)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	return s, tmp
}

// hostileValues are values that tmux's parser would change or choke on if
// they were not quoted exactly: every byte but NUL, expansions, comments,
// separators, a trailing ";", a leading "~", invalid UTF-8.
func hostileValues() map[string]string {
	var all []byte
	for c := 1; c < 256; c++ {
		all = append(all, byte(c))
	}
	return map[string]string{
		"ALL_BYTES": "marker-all " + string(all),
		"HOSTILE":   "marker-hostile $(touch PWNED) `x` 'q' \"q\" \\ ; {\n} second line;",
		"TILDE":     "~/marker-tilde",
		"HASH":      "#marker-hash",
		"FORMAT":    "#{pane_id}marker-format",
		"PERCENT":   "%if marker-percent",
		"TRAIL":     "marker-trail;",
		"EMPTY":     "",
		"INVALID":   "marker-invalid \xff\xfe\xc3",
		"LONG":      "marker-long " + strings.Repeat("0123456789abcdef", 100<<10/16), // 100 KB: over tmux's 16 KiB command limit
	}
}

// TestBatchValuesArriveExactly runs a batch through tmux's command file: each
// value reaches the pane's environment and the session's exactly, and none of
// them is on the server's command line or left in a file.
func TestBatchValuesArriveExactly(t *testing.T) {
	s, tmp := testServerOwnTmp(t, "roundtrip")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	vals := hostileValues()
	var b Batch
	args := []string{"new-session", "-d", "-s", "x", "-P", "-F", "#{pane_pid}"}
	for k, v := range vals {
		args = append(args, "-e", k+"="+v)
	}
	b.Add(append(args, "sleep", "100")...)
	for k, v := range vals {
		b.Add("set-environment", "-t", "=x", "S_"+k, v)
	}
	big := "marker-big " + strings.Repeat("x", 300<<10)
	b.Add("set-environment", "-t", "=x", "BIG", big)
	out, err := s.StartBatch(ctx, &b)
	if err != nil || len(out) != 1 {
		t.Fatalf("start: %q %v", out, err)
	}
	pid, _ := strconv.Atoi(out[0])
	env, err := proc.Environ(pid)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range vals {
		if env[k] != v {
			t.Errorf("pane env %s = %q, want %q", k, env[k], v)
		}
		if got, err := s.Run(ctx, "show-environment", "-t", "=x", "S_"+k); err != nil || got != "S_"+k+"="+v+"\n" {
			t.Errorf("session env S_%s = %q (%v), want %q", k, got, err, v)
		}
	}
	if got, _ := s.Run(ctx, "show-environment", "-t", "=x", "BIG"); got != "BIG="+big+"\n" {
		t.Errorf("a 300 KB value came back as %d bytes", len(got))
	}
	if _, err := os.Stat("PWNED"); err == nil {
		t.Error("a value was run by a shell")
	}
	srvPID, _ := s.Run(ctx, "display-message", "-p", "#{pid}")
	n, _ := strconv.Atoi(strings.TrimSpace(srvPID))
	argv, err := proc.Cmdline(n)
	if err != nil || len(argv) == 0 {
		t.Fatalf("server argv: %q %v", argv, err)
	}
	if strings.Contains(strings.Join(argv, " "), "marker-") {
		t.Errorf("the server's argv holds a value: %q", argv)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("command files left behind: %v", left)
	}
}

// TestBatchStopsAtAnErrorWithoutShowingValues: an error ends the batch (the
// commands after it do not run), the output before it comes back, and the
// error names the command but none of its values.
func TestBatchStopsAtAnErrorWithoutShowingValues(t *testing.T) {
	s, tmp := testServerOwnTmp(t, "batcherr")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var start Batch
	start.Add("new-session", "-d", "-s", "x", "sleep", "100")
	if _, err := s.StartBatch(ctx, &start); err != nil {
		t.Fatal(err)
	}
	var b Batch
	b.Add("display-message", "-p", "one")
	b.Add("split-window", "-t", "%99", "-e", "KEY=sk-marker-secret", "sleep", "100")
	b.Add("display-message", "-p", "two")
	out, err := s.RunBatch(ctx, &b)
	var ce *CommandError
	if !errors.As(err, &ce) {
		t.Fatalf("want a CommandError, got %v", err)
	}
	if strings.Join(out, ",") != "one" {
		t.Errorf("output %q, want only the command before the error", out)
	}
	if msg := err.Error(); strings.Contains(msg, "sk-marker-secret") || !strings.Contains(msg, "split-window") || !strings.Contains(msg, "can't find pane") {
		t.Errorf("error %q: want the command's name and tmux's message, no value", msg)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("command files left behind: %v", left)
	}
}

// TestControlCommandValuesArriveExactly: a control client's commands carry
// any value, newlines and 200 KB included, and its errors show none.
func TestControlCommandValuesArriveExactly(t *testing.T) {
	t.Parallel()
	s := testServer(t, "ctlvalues")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var start Batch
	start.Add("new-session", "-d", "-s", "x", "sleep", "100")
	if _, err := s.StartBatch(ctx, &start); err != nil {
		t.Fatal(err)
	}
	c, err := s.Control(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	vals := hostileValues()
	vals["HUGE"] = strings.Repeat("y", 200<<10)
	for k, v := range vals {
		if _, err := c.Command(ctx, "set-environment", "-t", "=x", k, v); err != nil {
			t.Fatalf("set %s: %v", k, err)
		}
		if got, err := s.Run(ctx, "show-environment", "-t", "=x", k); err != nil || got != k+"="+v+"\n" {
			t.Errorf("%s came back as %q (%v), want %q", k, got, err, v)
		}
	}
	_, err = c.Command(ctx, "respawn-pane", "-k", "-t", "%99", "-e", "KEY=sk-marker-secret", "sleep", "1")
	if err == nil || strings.Contains(err.Error(), "sk-marker-secret") || !strings.Contains(err.Error(), "tmux respawn-pane:") {
		t.Errorf("error %v: want the command's name and no value", err)
	}
}

func TestSocketPathTooLongIsSaidClearly(t *testing.T) {
	long := "/tmp/" + strings.Repeat("d", 120)
	t.Setenv("TMUX_TMPDIR", long)
	err := CheckSocketPath("teamctl-x")
	if err == nil || !strings.Contains(err.Error(), "at most 107") || !strings.Contains(err.Error(), "TMUX_TMPDIR") {
		t.Errorf("got %v", err)
	}
	t.Setenv("TMUX_TMPDIR", "/tmp")
	if err := CheckSocketPath("teamctl-x"); err != nil {
		t.Error(err)
	}
}
