// Package testenv gives each integration test its own world: a teamctl binary,
// and temp HOME, CLAUDE_CONFIG_DIR, XDG_STATE_HOME and TMUX_TMPDIR, so tests run
// real tmux on their own sockets and never touch the user's server or ~/.claude.
// Every tmux server started under the test's TMUX_TMPDIR is killed by its socket
// when the test ends.
package testenv

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/internal/proc"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Binary builds teamctl once per test binary and returns its path.
//
// It first reads every Go source file of the module (and go.mod/go.sum): go
// test's cache records the files a test opens and reruns the test when one
// changes, while it cannot see what a `go build` in a subprocess read. Without
// this, a change to teamctl outside the test's own imports would be answered
// with a stale cached pass.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		if err := readSources(); err != nil {
			buildErr = err
			return
		}
		dir, err := os.MkdirTemp("", "teamctl-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "teamctl")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", binPath, "github.com/teamctl/teamctl/cmd/teamctl")
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build teamctl: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// RemoveBinary removes the teamctl Binary built, if one was: a TestMain
// calls it after m.Run, since a test binary's temp folder outlives its tests
// (each run once left 21 MB in /tmp).
func RemoveBinary() {
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
}

// Main runs the tests of a package that uses Binary and removes the binary
// after them; a TestMain returns with os.Exit(testenv.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	RemoveBinary()
	return code
}

// InMemory runs m with TMPDIR (so t.TempDir and os.MkdirTemp) in a fresh
// folder on /dev/shm, when the machine has one, and removes it after. For
// packages whose tests write many small files atomically (state files,
// mailboxes, git objects): each such write waits for an fsync, and on a disk
// that every other test shares that wait, not the test's own work, was most
// of their time (the supervisor's decision tests: 4.3 s on disk, 2.8 s here).
// What the tests check does not depend on the disk: the files, their modes
// and renames are the same on tmpfs.
func InMemory(m *testing.M) int {
	dir, err := os.MkdirTemp("/dev/shm", "teamctl-test-")
	if err != nil {
		return m.Run() // no /dev/shm: on disk, only slower
	}
	defer os.RemoveAll(dir)
	os.Setenv("TMPDIR", dir)
	return m.Run()
}

// readSources reads the module's build inputs, for go test's cache (see Binary).
func readSources() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	for _, f := range []string{"go.mod", "go.sum"} {
		os.ReadFile(filepath.Join(root, f))
	}
	return filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			_, err := os.ReadFile(path)
			return err
		}
		if strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".json") {
			os.ReadFile(path) // embedded into the binary (configs/)
		}
		return nil
	})
}

// Env is one test's isolated world.
type Env struct {
	T          testing.TB
	Bin        string
	Dir        string // holds home, state, work
	Home       string
	ClaudeDir  string
	StateHome  string
	TmuxTmpDir string
	Work       string // a folder for layouts and members' cwd
	Extra      []string
}

// New makes an Env and registers its clean-up.
func New(t testing.TB) *Env {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	dir := t.TempDir()
	// Unix socket paths are limited to ~108 bytes: keep TMUX_TMPDIR short.
	tt, err := os.MkdirTemp("", "tc")
	if err != nil {
		t.Fatal(err)
	}
	e := &Env{
		T: t, Bin: Binary(t), Dir: dir,
		Home: filepath.Join(dir, "home"), StateHome: filepath.Join(dir, "state"),
		TmuxTmpDir: tt, Work: filepath.Join(dir, "work"),
	}
	e.ClaudeDir = filepath.Join(e.Home, ".claude")
	for _, d := range []string{e.Home, e.StateHome, e.Work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if t.Failed() {
			e.logSupervisors()
		}
		e.KillServers()
		e.killLeftovers()
		os.RemoveAll(tt)
	})
	return e
}

// logSupervisors puts the end of every team's supervisor log into a failing
// test's output: what the supervisor saw is usually why.
func (e *Env) logSupervisors() {
	logs, _ := filepath.Glob(filepath.Join(e.StateHome, "teamctl", "*", "supervisor.log"))
	for _, p := range logs {
		b, _ := os.ReadFile(p)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) > 60 {
			lines = lines[len(lines)-60:]
		}
		e.T.Logf("%s:\n%s", p, strings.Join(lines, "\n"))
	}
}

// Environ is the environment teamctl and tmux run with in this Env.
func (e *Env) Environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "HOME", "CLAUDE_CONFIG_DIR", "XDG_STATE_HOME", "TMUX_TMPDIR", "TMUX", "TMUX_PANE", "TEAMCTL_TEAM", "TEAMCTL_CLAUDE", "NO_COLOR":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+e.Home, "CLAUDE_CONFIG_DIR="+e.ClaudeDir, "XDG_STATE_HOME="+e.StateHome, "TMUX_TMPDIR="+e.TmuxTmpDir)
	return append(env, e.Extra...)
}

// Result is a finished command.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs teamctl with args (deadline 2 minutes) and returns what it printed.
func (e *Env) Run(args ...string) Result {
	e.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, args...)
	cmd.Env = e.Environ()
	cmd.Dir = e.Work
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	r := Result{Stdout: so.String(), Stderr: se.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.Code = ee.ExitCode()
	} else if err != nil {
		e.T.Fatalf("run teamctl %v: %v", args, err)
	}
	return r
}

// MustRun runs teamctl and fails the test unless it exits 0.
func (e *Env) MustRun(args ...string) Result {
	e.T.Helper()
	r := e.Run(args...)
	if r.Code != 0 {
		e.T.Fatalf("teamctl %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// Tmux runs tmux on socket in this Env (deadline 10s).
func (e *Env) Tmux(socket string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tmux", append([]string{"-L", socket}, args...)...)
	cmd.Env = e.Environ()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// KillServers kills every tmux server whose socket is in this Env's TMUX_TMPDIR,
// each by its own socket.
func (e *Env) KillServers() {
	dir := filepath.Join(e.TmuxTmpDir, fmt.Sprintf("tmux-%d", os.Getuid()))
	ents, _ := os.ReadDir(dir)
	for _, ent := range ents {
		e.Tmux(ent.Name(), "kill-server")
	}
}

// killLeftovers ends, by pid, every process this test's world started that is
// still there after its servers went — a supervisor, or a server whose socket
// is gone — found by the test's own TMUX_TMPDIR in its environment.
func (e *Env) killLeftovers() {
	for _, pid := range proc.Matching(func(env map[string]string) bool { return env["TMUX_TMPDIR"] == e.TmuxTmpDir }) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// WriteFile writes a file under Work and returns its path.
func (e *Env) WriteFile(name, content string) string {
	e.T.Helper()
	p := filepath.Join(e.Work, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		e.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		e.T.Fatal(err)
	}
	return p
}

// WriteExecutable writes a program (a script) at name under the test's work
// folder, executable, and returns its path. A child process writes it, not
// this one: a file this process held open for writing is inherited by every
// child a parallel test forks, until that child execs, and exec of the
// program fails meanwhile with "text file busy" (ETXTBSY, golang/go#22315).
func (e *Env) WriteExecutable(name, content string) string {
	e.T.Helper()
	p := filepath.Join(e.Work, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		e.T.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", `umask 077 && cat > "$1" && chmod 700 "$1"`, "sh", p)
	cmd.Stdin = strings.NewReader(content)
	if out, err := cmd.CombinedOutput(); err != nil {
		e.T.Fatalf("write %s: %v\n%s", p, err, out)
	}
	return p
}

// MinWait is the least Eventually waits before it gives up. What takes a
// second alone can take many times that with the rest of the suite, or another
// go test, on the same two cores; and since a condition that holds returns at
// once, a long deadline costs only a test that fails anyway.
const MinWait = time.Minute

// maxPoll bounds the growing interval between two looks at a condition.
const maxPoll = 200 * time.Millisecond

// Eventually polls cond until it holds or timeout (at least MinWait) passes;
// cond says what it saw, which the failure reports. It is for waiting, never
// for asserting how fast something happens.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	timeout = max(timeout, MinWait)
	deadline := time.Now().Add(timeout)
	var last string
	poll := 20 * time.Millisecond
	for {
		ok, seen := cond()
		if ok {
			return
		}
		last = seen
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s; last seen:\n%s", timeout, what, last)
		}
		time.Sleep(poll) // poll interval of a condition wait, not a synchronisation sleep
		// A condition is often a teamctl or tmux process: polling every 20ms
		// for seconds spent most of the suite's CPU on the 2-core machines.
		poll = min(poll*3/2, maxPoll)
	}
}
