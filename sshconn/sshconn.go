// Package sshconn runs commands on other hosts with the system's OpenSSH
// client, the only code in teamctl that runs ssh: one shared connection per
// host (ControlMaster, ControlPersist, its socket in a 0700 folder of
// teamctl's), batch mode (no password or passphrase prompt: a supervisor
// has no one to ask), and the user's own configuration, agent and host-key
// checking, never turned off. A command is argv: ssh hands the host one
// command line, which its shell splits, so each word is quoted for it here;
// what must not be on a command line (a secret, a pane's command file) goes
// over stdin.
package sshconn

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ConfigEnv names an ssh client config file teamctl passes as ssh -F, in
// place of ~/.ssh/config (ssh reads the home from the password database, not
// $HOME: a test, or a person keeping a team's hosts apart, points here).
const ConfigEnv = "TEAMCTL_SSH_CONFIG"

// Host is a host reached with ssh.
type Host struct {
	Dest string // the ssh destination, as the user's ssh takes it
	// Config is an ssh client config file (ssh -F); "" for the user's own.
	Config string
	// ControlDir is the 0700 folder of the shared connection's socket; ""
	// for none (each command its own connection).
	ControlDir string
	// Persist is how long the shared connection stays after its last
	// command (ControlPersist); 0 for a minute.
	Persist time.Duration
}

// New is the host dest, with the config ConfigEnv names (if set) and the
// shared connection's socket in controlDir.
func New(dest, controlDir string) Host {
	return Host{Dest: dest, Config: os.Getenv(ConfigEnv), ControlDir: controlDir}
}

// Argv is the ssh command line that runs args on h (args quoted for its
// shell; see Quote).
func (h Host) Argv(args ...string) []string {
	if len(args) == 0 {
		return h.argvLine("")
	}
	return h.argvLine(QuoteArgs(args))
}

// TerminalArgv is Argv with a terminal on the host (ssh -t): for a person's
// command there, such as tmux attaching to its server.
func (h Host) TerminalArgv(args ...string) []string {
	argv := h.Argv(args...)
	for i, a := range argv {
		if a == "--" {
			return append(append(argv[:i:i], "-t"), argv[i:]...)
		}
	}
	return argv
}

// GitSSHCommand is h's ssh as GIT_SSH_COMMAND (a shell command line, each
// word quoted): git appends the destination and its own command, and so
// fetches over h's shared connection with h's options.
func (h Host) GitSSHCommand() string {
	argv := h.argvLine("")
	return QuoteArgs(argv[:len(argv)-2]) // without "--" and the destination
}

// argvLine is the ssh command line that runs line, a command line for h's
// shell, on h ("": none).
func (h Host) argvLine(line string) []string {
	argv := []string{"ssh"}
	if h.Config != "" {
		argv = append(argv, "-F", h.Config)
	}
	// A link that drops silently is noticed within ServerAlive's 3 × 3 s:
	// the connection (and every command sharing it) then ends, and the
	// supervisor shows the host unreachable rather than wait on it.
	argv = append(argv, "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "-o", "ServerAliveInterval=3", "-o", "ServerAliveCountMax=3")
	if h.ControlDir != "" {
		persist := h.Persist
		if persist <= 0 {
			persist = time.Minute
		}
		argv = append(argv, "-o", "ControlMaster=auto", "-o", "ControlPath="+filepath.Join(h.ControlDir, h.controlName()),
			"-o", fmt.Sprintf("ControlPersist=%ds", int(persist.Seconds())))
	}
	argv = append(argv, "--", h.Dest)
	if line != "" {
		argv = append(argv, line)
	}
	return argv
}

// controlName is the name of h's shared connection's socket: short, since a
// Unix socket's path holds at most 107 bytes and ssh makes it first under a
// name 17 bytes longer (ssh's own %C is 40), and one per destination and
// config, as ssh would tell them apart.
func (h Host) controlName() string {
	sum := sha256.Sum256([]byte(h.Config + "\x00" + h.Dest))
	return hex.EncodeToString(sum[:8])
}

// Command is the command that runs args on h.
func (h Host) Command(ctx context.Context, args ...string) *exec.Cmd {
	return h.command(ctx, h.Argv(args...))
}

func (h Host) command(ctx context.Context, argv []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.WaitDelay = 2 * time.Second // an ssh whose master keeps its pipes open is not waited on forever
	return cmd
}

// Error is a command on a host that failed: ssh's exit status 255 is ssh's
// own failure (the host not reached), any other the command's.
type Error struct {
	Dest, Command string
	Code          int
	Stderr        string // its last lines
}

func (e *Error) Error() string {
	if e.Unreachable() {
		return fmt.Sprintf("%s: not reached with ssh: %s", e.Dest, e.Stderr)
	}
	return fmt.Sprintf("%s: %s: exit status %d: %s", e.Dest, e.Command, e.Code, e.Stderr)
}

// Unreachable reports whether ssh itself failed (exit 255): the host not
// reached, refused, or its key not trusted.
func (e *Error) Unreachable() bool { return e.Code == 255 }

// Run runs args on h within timeout, with stdin (nil: none), and returns
// what it printed on stdout. A failure is an *Error (or ctx's).
func (h Host) Run(ctx context.Context, timeout time.Duration, stdin io.Reader, args ...string) (string, error) {
	return h.run(ctx, timeout, stdin, QuoteArgs(args))
}

// RunLine is Run of a command line of the caller's own, its words already
// quoted (Quote, HomePath): for what argv cannot say, like a path under ~.
func (h Host) RunLine(ctx context.Context, timeout time.Duration, line string) (string, error) {
	return h.run(ctx, timeout, nil, line)
}

// RunLineInput is RunLine with stdin.
func (h Host) RunLineInput(ctx context.Context, timeout time.Duration, stdin io.Reader, line string) (string, error) {
	return h.run(ctx, timeout, stdin, line)
}

func (h Host) run(ctx context.Context, timeout time.Duration, stdin io.Reader, line string) (string, error) {
	if strings.TrimSpace(line) == "" {
		return "", errors.New("sshconn: no command to run (ssh would open a login shell)")
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := h.command(ctx, h.argvLine(line))
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &limited{w: &errb, n: 16 << 10}
	err := cmd.Run()
	if err == nil {
		return out.String(), nil
	}
	if ctx.Err() != nil {
		return out.String(), fmt.Errorf("%s: %s: %w", h.Dest, line, ctx.Err())
	}
	var xe *exec.ExitError
	if errors.As(err, &xe) {
		return out.String(), &Error{Dest: h.Dest, Command: line, Code: xe.ExitCode(), Stderr: lastLines(errb.String(), 3)}
	}
	return out.String(), fmt.Errorf("%s: %w", h.Dest, err)
}

// Close ends h's shared connection, if one is up (ssh -O exit).
func (h Host) Close(ctx context.Context) {
	if h.ControlDir == "" {
		return
	}
	argv := h.argvLine("")
	argv = append(argv[:len(argv)-2:len(argv)-2], "-O", "exit", "--", h.Dest)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	exec.CommandContext(ctx, argv[0], argv[1:]...).Run()
}

// Quote is s as one word for a POSIX shell: in single quotes, each single
// quote in it closed, escaped with a backslash and opened again. A word of
// only safe characters stays bare.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// QuoteArgs is args as one command line for a POSIX shell, each its own word.
func QuoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}

// HomePath is p, a path on the host that is absolute or under the remote
// home ("~/src/app"), as a shell word that the host's shell expands to it:
// "~/" left bare (the shell expands it), the rest quoted.
func HomePath(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return "~/" + Quote(rest)
	}
	return Quote(p)
}

// lastLines are the last n non-blank lines of s, joined by "; ".
func lastLines(s string, n int) string {
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			keep = append(keep, l)
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	return strings.Join(keep, "; ")
}

// Limit is w taking at most n bytes, dropping the rest (an ssh's stderr
// kept for an error, whatever the host prints).
func Limit(w io.Writer, n int) io.Writer { return &limited{w: w, n: n} }

// limited writes at most n bytes to w, then drops the rest.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
