// Package tmux is the only code in teamctl that runs tmux. Every command names its
// server (-L socket), runs with a deadline, and addresses panes by ID and sessions
// with exact =name targets, so nothing depends on indexes or on the user's server.
package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// DefaultTimeout bounds a tmux command when the caller's context has no deadline.
const DefaultTimeout = 10 * time.Second

// MinMajor and MinMinor are the oldest tmux teamctl supports: 3.2 brought -e on
// new-session and control-mode subscriptions.
const (
	MinMajor = 3
	MinMinor = 2
)

// Server is one tmux server, reached through its socket name (tmux -L).
type Server struct {
	Socket string // socket name; the file lives in $TMUX_TMPDIR/tmux-UID/
	Bin    string // tmux program; "" means "tmux" from PATH
	// Via is the host the server runs on when it is not this machine
	// (sshconn.Host): every tmux command runs there, its argv handed to
	// Via.Argv; its socket file is the host's, never looked at here.
	Via Remote
}

// Remote runs a command on another host: Argv is the argv (here) that runs
// args there, each word arriving as it is.
type Remote interface {
	Argv(args ...string) []string
}

// ErrUnreachable is returned (wrapped) when a remote server's host was not
// reached (ssh's own failure, its exit status 255): the server may well be
// running, and its panes with it.
var ErrUnreachable = errors.New("host not reached")

// command is the command that runs tmux with args: here, or on Via's host.
// Every client but a person's is given -u: without a UTF-8 locale (an ssh
// session's, cron's) tmux prints each control character and each byte of
// a non-ASCII one as "_", which would break list-panes' separators and a
// screen's "❯".
func (s *Server) command(ctx context.Context, args ...string) *exec.Cmd {
	argv := s.argv(args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if s.Via != nil {
		cmd.WaitDelay = 2 * time.Second // an ssh whose shared connection keeps its pipes open is not waited on forever
	}
	return cmd
}

// argv is the argv that runs tmux with args: here, or on Via's host.
func (s *Server) argv(args ...string) []string {
	argv := append([]string{s.bin()}, args...)
	if s.Via != nil {
		argv = s.Via.Argv(argv...)
	}
	return argv
}

// unreachable reports whether err is a remote server's ssh that failed.
func (s *Server) unreachable(err error) bool {
	var xe *exec.ExitError
	return s.Via != nil && errors.As(err, &xe) && xe.ExitCode() == 255
}

// local reports whether the server's socket file is on this machine.
func (s *Server) local() bool { return s.Via == nil }

// CommandError is a tmux invocation that failed: the names of its commands
// and what tmux said. It never holds the commands' arguments, which may be
// secrets (env values) or whole prompts.
type CommandError struct {
	Commands []string // new-session, set-environment, …
	Stderr   string   // what tmux said, env values of the commands taken out
	Err      error
}

func (e *CommandError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("tmux %s: %s", strings.Join(e.Commands, ", "), msg)
}

func (e *CommandError) Unwrap() error { return e.Err }

// ErrNoServer is returned (wrapped) when the server is not running.
var ErrNoServer = errors.New("tmux server not running")

func (s *Server) bin() string {
	if s.Bin != "" {
		return s.Bin
	}
	return "tmux"
}

// Run runs one tmux command on the server and returns its standard output. It
// never starts a server (tmux -N): only StartBatch does, so a late command of a
// supervisor or a status cannot bring back a team's server that just went.
// Its arguments are on tmux's command line, so they must hold no secret:
// commands that carry env values go through a Batch (or a Control).
func (s *Server) Run(ctx context.Context, args ...string) (string, error) {
	cmds := [][]string{args}
	return s.run(ctx, append([]string{"-N"}, escapeArgs(args)...), commandNames(cmds), envValues(cmds))
}

// run runs tmux with args; names are the commands it runs and secrets the
// values that must not show in an error (see CommandError).
func (s *Server) run(ctx context.Context, args, names, secrets []string) (string, error) {
	return s.runInput(ctx, nil, args, names, secrets)
}

// runInput is run with stdin as tmux's standard input (nil: none).
func (s *Server) runInput(ctx context.Context, stdin []byte, args, names, secrets []string) (string, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	full := append([]string{"-u", "-L", s.Socket}, args...)
	cmd := s.command(ctx, full...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", err, ctx.Err())
		}
		ce := &CommandError{Commands: names, Stderr: redact(stderr.String(), secrets), Err: err}
		if s.unreachable(err) {
			return "", fmt.Errorf("%w: %w", ErrUnreachable, ce)
		}
		if s.local() && strings.Contains(stderr.String(), "File name too long") {
			if err := CheckSocketPath(s.Socket); err != nil {
				return "", fmt.Errorf("%w: %w", err, ce)
			}
		}
		if isNoServer(stderr.String()) {
			return "", fmt.Errorf("%w: %w", ErrNoServer, ce)
		}
		return stdout.String(), ce
	}
	return stdout.String(), nil
}

func isNoServer(stderr string) bool {
	return strings.Contains(stderr, "no server running") ||
		strings.Contains(stderr, "error connecting to") ||
		strings.Contains(stderr, "server exited unexpectedly")
}

// escapeArgs protects arguments from tmux's own command-line parsing: an argument
// ending in ";" would end the command there (the rest would run as another tmux
// command), so a trailing ";" is sent as "\;", which tmux turns back into ";".
func escapeArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = Escape(a)
	}
	return out
}

// Escape returns arg as it must be written on tmux's command line to arrive as-is.
func Escape(arg string) string {
	if strings.HasSuffix(arg, ";") {
		return arg[:len(arg)-1] + `\;`
	}
	return arg
}

// EscapeFormat doubles "#" so a value that tmux expands as a format (start
// directories, for one) arrives literally.
func EscapeFormat(s string) string { return strings.ReplaceAll(s, "#", "##") }

// Batch is several tmux commands run by one tmux invocation, which costs one
// process start instead of one per command. They go to tmux in a command file
// (see runScript), never on its command line, so any argument may hold a
// secret, a newline, or any number of bytes.
type Batch struct {
	cmds [][]string
}

// Add appends one command.
func (b *Batch) Add(args ...string) { b.cmds = append(b.cmds, args) }

// Len is the number of commands.
func (b *Batch) Len() int { return len(b.cmds) }

// Commands are the batch's commands, each its argv (a copy).
func (b *Batch) Commands() [][]string {
	out := make([][]string, len(b.cmds))
	for i, c := range b.cmds {
		out[i] = append([]string(nil), c...)
	}
	return out
}

// RunBatch runs the batch and returns the lines it printed (for example one
// pane ID per create command given -P). An error stops the commands after the
// one that failed; the lines printed until then come back too. Like Run, it
// never starts a server.
func (s *Server) RunBatch(ctx context.Context, b *Batch) ([]string, error) {
	return s.runBatch(ctx, b, false)
}

// StartBatch is RunBatch for the one batch that may start the server.
func (s *Server) StartBatch(ctx context.Context, b *Batch) ([]string, error) {
	return s.runBatch(ctx, b, true)
}

func (s *Server) runBatch(ctx context.Context, b *Batch, start bool) ([]string, error) {
	if len(b.cmds) == 0 {
		return nil, nil
	}
	out, err := s.runScript(ctx, b.cmds, start)
	return lines(out), err
}

func lines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// SessionTarget is the exact target of the session called name (a bare name
// would also match a longer one by prefix).
func SessionTarget(name string) string { return "=" + name }

// HasSession reports whether the server answers and holds session. Without a
// socket file there is no server, and no tmux process is needed to say so.
func (s *Server) HasSession(ctx context.Context, session string) (bool, error) {
	if _, err := os.Stat(SocketPath(s.Socket)); s.local() && errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	_, err := s.Run(ctx, "has-session", "-t", SessionTarget(session))
	if err == nil {
		return true, nil
	}
	var ce *CommandError
	if errors.Is(err, ErrNoServer) {
		return false, nil
	}
	if errors.As(err, &ce) && (strings.Contains(ce.Stderr, "can't find session") || strings.Contains(ce.Stderr, "no such session")) {
		return false, nil
	}
	return false, err
}

// KillServer ends the server and removes its socket file (tmux leaves it
// behind); a server that is already gone is not an error.
func (s *Server) KillServer(ctx context.Context) error {
	_, err := s.Run(ctx, "kill-server")
	if err != nil && !errors.Is(err, ErrNoServer) {
		return err
	}
	if !s.local() {
		// tmux there leaves its socket file there too: removed there, if it
		// is a socket (the name is the team's, passed as a word, never code).
		argv := s.Via.Argv("sh", "-c", `f="${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$1"; if [ -S "$f" ]; then rm -f -- "$f"; fi`, "sh", s.Socket)
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.WaitDelay = 2 * time.Second
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("remove socket of %s there: %w: %s", s.Socket, err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	if err := os.Remove(SocketPath(s.Socket)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove socket of %s: %w", s.Socket, err)
	}
	return nil
}

// Version is a parsed `tmux -V`.
type Version struct {
	Major, Minor int
	Raw          string
}

// AtLeast reports whether v >= major.minor.
func (v Version) AtLeast(major, minor int) bool {
	return v.Major > major || (v.Major == major && v.Minor >= minor)
}

// ParseVersion reads the output of `tmux -V` ("tmux 3.3a", "tmux next-3.4",
// "tmux openbsd-7.4" has no number and is taken as new enough).
func ParseVersion(out string) (Version, error) {
	raw := strings.TrimSpace(out)
	f := strings.Fields(raw)
	if len(f) < 2 || f[0] != "tmux" {
		return Version{Raw: raw}, fmt.Errorf("unexpected tmux -V output %q", raw)
	}
	num := f[1]
	if i := strings.LastIndexByte(num, '-'); i >= 0 {
		if strings.HasPrefix(num, "openbsd") {
			return Version{Major: 99, Raw: raw}, nil
		}
		num = num[i+1:]
	}
	maj, rest, _ := strings.Cut(num, ".")
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	ma, err1 := strconv.Atoi(maj)
	mi, err2 := strconv.Atoi(rest[:end])
	if err1 != nil || err2 != nil {
		return Version{Raw: raw}, fmt.Errorf("unexpected tmux -V output %q", raw)
	}
	return Version{Major: ma, Minor: mi, Raw: raw}, nil
}

// GetVersion runs `tmux -V` with bin ("" for tmux from PATH).
func GetVersion(ctx context.Context, bin string) (Version, error) {
	if bin == "" {
		bin = "tmux"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return Version{}, fmt.Errorf("tmux not found (%w): teamctl needs tmux %d.%d or newer; install it (Debian/Ubuntu: apt-get install tmux, macOS: brew install tmux)", err, MinMajor, MinMinor)
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "-V").Output()
	if err != nil {
		return Version{}, fmt.Errorf("run %s -V: %w", path, err)
	}
	return ParseVersion(string(out))
}

// CheckVersion returns the version, or a clear error when tmux is missing or too old.
func CheckVersion(ctx context.Context, bin string) (Version, error) {
	v, err := GetVersion(ctx, bin)
	if err != nil {
		return v, err
	}
	if !v.AtLeast(MinMajor, MinMinor) {
		return v, fmt.Errorf("%s is too old: teamctl needs tmux %d.%d or newer (for new-session -e and control-mode subscriptions)", v.Raw, MinMajor, MinMinor)
	}
	return v, nil
}

// SocketPath is where tmux puts the socket of a -L name, honouring TMUX_TMPDIR.
func SocketPath(socket string) string {
	dir := os.Getenv("TMUX_TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	return fmt.Sprintf("%s/tmux-%d/%s", strings.TrimRight(dir, "/"), os.Getuid(), socket)
}

// Listening reports whether a tmux server listens on the socket. It is false
// only when the socket is gone or refuses connections (a server that ended,
// or was killed); a server too busy to take a connection now, or any other
// error, counts as listening, so that nobody gives a live team up for a slow
// moment (tmux says "error connecting to" for both kinds).
//
// A remote server is asked over ssh; a host not reached counts as listening
// (its server most likely runs on).
func (s *Server) Listening() bool {
	if !s.local() {
		ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
		defer cancel()
		_, err := s.Run(ctx, "list-sessions", "-F", "#{session_id}")
		return err == nil || !errors.Is(err, ErrNoServer)
	}
	c, err := net.DialTimeout("unix", SocketPath(s.Socket), 5*time.Second)
	if err == nil {
		c.Close()
		return true
	}
	return !errors.Is(err, syscall.ENOENT) && !errors.Is(err, syscall.ECONNREFUSED)
}

// MaxSocketPath is the longest socket path tmux can use: a Unix socket's
// address holds 108 bytes, the last of them a NUL.
const MaxSocketPath = 107

// CheckSocketPath says, clearly, when the socket's path is too long for a Unix
// socket (tmux itself only says it cannot connect).
func CheckSocketPath(socket string) error {
	p := SocketPath(socket)
	if len(p) <= MaxSocketPath {
		return nil
	}
	return fmt.Errorf("the tmux socket path %s is %d bytes, and a Unix socket path may be at most %d: set TMUX_TMPDIR to a shorter folder (it is %q; /tmp works)",
		p, len(p), MaxSocketPath, os.Getenv("TMUX_TMPDIR"))
}

// CommandArgs is how argv is given to new-session, split-window and friends so
// that it runs without a shell: tmux hands a single argument to "sh -c", so a
// one-element argv goes through a fixed `exec "$0"` that takes the program as a
// positional parameter and replaces the shell with it (same pid, nothing parsed).
func CommandArgs(argv []string) []string {
	if len(argv) == 1 {
		return []string{"/bin/sh", "-c", `exec "$0"`, argv[0]}
	}
	return argv
}
