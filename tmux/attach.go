package tmux

import (
	"context"
	"os"
	"os/exec"
	"strings"
)

// AttachCmd returns the command that attaches a terminal to the session target
// names (SessionTarget(name), or a session id $N). It runs for
// as long as the person stays attached, so it has no deadline: ctx only cancels.
// Inside another tmux, TMUX is removed from its environment so that tmux agrees
// to nest (it refuses with TMUX set). A message other than "" is shown on the
// attached client's status line for a few seconds: what is written to the
// terminal before tmux starts is hidden by its screen, and may even be
// discarded (tmux flushes the terminal's output as it takes it over).
func (s *Server) AttachCmd(ctx context.Context, target, message string) *exec.Cmd {
	args := []string{"-N", "-L", s.Socket, "attach-session", "-t", target}
	if message != "" {
		// The message is a format: ## is a literal #.
		args = append(args, ";", "display-message", "-d", "5000", strings.ReplaceAll(message, "#", "##"))
	}
	if s.Via != nil && localeUTF8() {
		// ssh passes no locale: tmux there would draw for an ASCII
		// terminal what this UTF-8 one shows.
		args = append([]string{"-u"}, args...)
	}
	cmd := s.command(ctx, args...)
	if t, ok := s.Via.(interface{ TerminalArgv(...string) []string }); ok {
		argv := t.TerminalArgv(append([]string{s.bin()}, args...)...)
		cmd = exec.CommandContext(ctx, argv[0], argv[1:]...)
	}
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMUX=") {
			out = append(out, kv)
		}
	}
	cmd.Env = out
	return cmd
}

// Nested reports whether this process runs inside a tmux client's pane.
func Nested() bool { return os.Getenv("TMUX") != "" }

// localeUTF8 reports whether this process's locale is UTF-8, as tmux reads
// it: the first of LC_ALL, LC_CTYPE and LANG that is set.
func localeUTF8() bool {
	for _, name := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := os.Getenv(name); v != "" {
			v = strings.ToUpper(v)
			return strings.Contains(v, "UTF-8") || strings.Contains(v, "UTF8")
		}
	}
	return false
}
