package tmux

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Commands that carry values (environment settings, prompts) never go on a tmux
// command line: tmux's server is forked from the first client and keeps that
// client's argv for life, and /proc/PID/cmdline is readable by every local user.
// A batch is written to a command file that only this user can read, which the
// server sources; a control client's commands travel on its stdin. Both are read
// by tmux's command parser, which quote writes for.

// quote appends arg to b in double quotes so that tmux's parser hands it on
// exactly: \, " and $ (which tmux would expand) are escaped, and so is ~
// (which tmux expands at the start of a word even inside quotes). Newline,
// CR and tab are written \n, \r, \t, and every other control byte and every
// byte from 0x80 up as \ooo: raw, tmux's parser would end the command at a
// newline, and it refuses a line holding bytes it cannot decode as UTF-8 in
// its locale.
func quote(b *strings.Builder, arg string) {
	b.WriteByte('"')
	for i := 0; i < len(arg); i++ {
		c := arg[i]
		switch {
		case c == '\\' || c == '"' || c == '$' || c == '~':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(b, `\%03o`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

// commandLine is one tmux command, each argument quoted.
func commandLine(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		quote(&b, a)
	}
	return b.String()
}

// scriptLine is the commands as one line, separated by " ; ". One line, so
// that an error stops the commands after it, as on a command line: tmux goes
// on with a file's next line after an error.
func scriptLine(cmds [][]string) string {
	var b strings.Builder
	for i, c := range cmds {
		if i > 0 {
			b.WriteString(" ; ")
		}
		b.WriteString(commandLine(c))
	}
	return b.String()
}

// commandNames are the names of cmds (new-session, set-environment, …), each
// once, in order: what an error may say about the commands, since their
// arguments may hold secrets.
func commandNames(cmds [][]string) []string {
	var names []string
	for _, c := range cmds {
		if len(c) > 0 && !slices.Contains(names, c[0]) {
			names = append(names, c[0])
		}
	}
	return names
}

// minSecret is the shortest value redact takes out of tmux's messages: a
// shorter one ("1", "yes") would mangle them and hides nothing.
const minSecret = 4

// envValues are the values cmds set in an environment: the VALUE of every
// -e NAME=VALUE, and set-environment's VALUE.
func envValues(cmds [][]string) []string {
	var vals []string
	for _, c := range cmds {
		for i := 1; i+1 < len(c); i++ {
			if c[i] == "-e" {
				if _, v, ok := strings.Cut(c[i+1], "="); ok && len(v) >= minSecret {
					vals = append(vals, v)
				}
				i++
			}
		}
		if len(c) > 0 && c[0] == "set-environment" && len(c) >= 3 && !slices.Contains(c, "-u") && !slices.Contains(c, "-r") {
			if v := c[len(c)-1]; len(v) >= minSecret {
				vals = append(vals, v)
			}
		}
	}
	return vals
}

// redact takes every value in secrets out of s. tmux is not known to repeat a
// value in its messages; this keeps it so should one ever do.
func redact(s string, secrets []string) string {
	for _, v := range secrets {
		s = strings.ReplaceAll(s, v, "[value hidden]")
	}
	return s
}

// runScript runs cmds through a command file: `source-file FILE`, after
// `start-server` when start is set. The file is 0600 in a fresh 0700 folder
// and is removed once tmux has run it (the client ends only after that).
//
// On a remote server the commands go over ssh's stdin to `source-file -`:
// never on a command line there or here, and no file left on the host.
func (s *Server) runScript(ctx context.Context, cmds [][]string, start bool) (string, error) {
	if !s.local() {
		args := []string{"-N", "source-file", "-"}
		if start {
			args = []string{"start-server", ";", "source-file", "-"}
		}
		return s.runInput(ctx, []byte(scriptLine(cmds)+"\n"), args, commandNames(cmds), envValues(cmds))
	}
	dir, err := os.MkdirTemp("", "teamctl-tmux-")
	if err != nil {
		return "", fmt.Errorf("tmux command file: %w", err)
	}
	defer os.RemoveAll(dir)
	if dir, err = filepath.Abs(dir); err != nil {
		return "", fmt.Errorf("tmux command file: %w", err)
	}
	path := filepath.Join(dir, "commands")
	if err := writeNew(path, []byte(scriptLine(cmds)+"\n")); err != nil {
		return "", fmt.Errorf("tmux command file: %w", err)
	}
	args := []string{"-N", "source-file", globEscape(path)}
	if start {
		args = []string{"start-server", ";", "source-file", globEscape(path)}
	}
	return s.run(ctx, args, commandNames(cmds), envValues(cmds))
}

// writeNew writes a new 0600 file. Not through atomicfile: nothing reads it
// before it is complete (tmux starts after), so a rename and an fsync would
// only slow up down.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// globEscape protects a path from source-file, which expands it as a glob(3)
// pattern.
func globEscape(path string) string {
	var b strings.Builder
	for _, r := range path {
		if strings.ContainsRune(`\*?[`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
