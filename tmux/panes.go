package tmux

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
)

// list-panes output is read as records that cannot be confused with their
// content: every record starts with recordSep, its fields are separated by
// sep, and the fields that hold free text (a session name, the
// @teamctl-member option, the pane's title: anything a program in a pane may
// set, newlines and separators included) come last, as their byte lengths
// followed by the texts themselves. A value can then neither end a record
// early nor pass for one.
const (
	recordSep = "\x1e"
	sep       = "\x1f"
)

// Pane is one pane as list-panes reports it.
type Pane struct {
	ID         string // %N
	PID        int
	Dead       bool
	DeadStatus *int // exit status of a dead pane, when it exited (not killed by a signal)
	DeadSignal int  // signal that killed a dead pane, 0 if none
	Window     string
	Session    string // its session's name, which a person may change
	SessionID  string // $N: its session, however it is named
	Member     string // the @teamctl-member pane option
	Title      string
	Width      int
	Height     int
	Left       int
	Top        int
	Active     bool
}

// paneFixed are the fields that are ids and numbers only; paneFree hold free text.
var (
	paneFixed = []string{"pane_id", "pane_pid", "pane_dead", "pane_dead_status", "pane_dead_signal",
		"window_id", "session_id", "pane_width", "pane_height", "pane_left", "pane_top", "pane_active"}
	paneFree = []string{"session_name", "@teamctl-member", "pane_title"}
)

// paneFormat is recordSep, the fixed fields, the free fields' lengths (the
// n: modifier gives a value's length in bytes), each followed by sep, then the
// free texts one after the other.
var paneFormat = func() string {
	var b strings.Builder
	b.WriteString(recordSep)
	for _, f := range paneFixed {
		b.WriteString("#{" + f + "}" + sep)
	}
	for _, f := range paneFree {
		b.WriteString("#{n:" + f + "}" + sep)
	}
	for _, f := range paneFree {
		b.WriteString("#{" + f + "}")
	}
	return b.String()
}()

// ListPanes lists every pane on the server. A record that does not parse
// (which tmux does not print) is skipped, never an error: one odd pane must
// not keep status, down or clean from seeing the others.
//
// With no socket file there is no server to ask: ErrNoServer without running
// tmux (up asks first thing, for a team that is down this is one process less).
func (s *Server) ListPanes(ctx context.Context) ([]Pane, error) {
	if _, err := os.Lstat(SocketPath(s.Socket)); s.local() && errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: no socket %s", ErrNoServer, SocketPath(s.Socket))
	}
	out, err := s.Run(ctx, "list-panes", "-a", "-F", paneFormat)
	if err != nil {
		return nil, err
	}
	panes, _ := parsePanes(out)
	return panes, nil
}

// parsePanes reads list-panes output in paneFormat; skipped counts the
// records that did not parse.
func parsePanes(out string) (panes []Pane, skipped int) {
	for {
		i := strings.Index(out, recordSep)
		if i < 0 {
			if strings.TrimSpace(out) != "" {
				skipped++
			}
			return panes, skipped
		}
		if strings.TrimSpace(out[:i]) != "" {
			skipped++ // something before a record: not ours to read
		}
		out = out[i+len(recordSep):]
		p, rest, ok := parsePane(out)
		if ok {
			panes = append(panes, p)
			out = rest
			continue
		}
		skipped++
		// Go on at the next line that starts a record.
		j := strings.Index(out, "\n"+recordSep)
		if j < 0 {
			return panes, skipped
		}
		out = out[j+1:]
	}
}

// parsePane reads one record (after its recordSep) and returns the output
// after it.
func parsePane(s string) (p Pane, rest string, ok bool) {
	nf := len(paneFixed) + len(paneFree)
	f := strings.SplitN(s, sep, nf+1)
	if len(f) != nf+1 {
		return Pane{}, "", false
	}
	num := func(v string) (int, bool) {
		n, err := strconv.Atoi(v)
		return n, err == nil && n >= 0
	}
	// pid, dead signal (empty when none), width, height, left, top
	var n [6]int
	for i, v := range []string{f[1], f[4], f[7], f[8], f[9], f[10]} {
		var good bool
		if n[i], good = num(v); !good && !(i == 1 && v == "") {
			return Pane{}, "", false
		}
	}
	if !paneIDRE.MatchString(f[0]) || !strings.HasPrefix(f[5], "@") || !sessionIDRE.MatchString(f[6]) || !isFlag(f[2]) || !isFlag(f[11]) {
		return Pane{}, "", false
	}
	texts := make([]string, len(paneFree))
	rest = f[nf]
	for i := range paneFree {
		l, good := num(f[len(paneFixed)+i])
		if !good || l > len(rest) {
			return Pane{}, "", false
		}
		texts[i], rest = rest[:l], rest[l:]
	}
	if rest != "" && rest[0] != '\n' {
		return Pane{}, "", false
	}
	p = Pane{
		ID: f[0], PID: n[0], Dead: f[2] == "1", DeadSignal: n[1], Window: f[5], SessionID: f[6],
		Session: texts[0], Member: texts[1], Title: texts[2],
		Width: n[2], Height: n[3], Left: n[4], Top: n[5], Active: f[11] == "1",
	}
	if p.Dead && f[3] != "" {
		if st, err := strconv.Atoi(f[3]); err == nil {
			p.DeadStatus = &st
		}
	}
	return p, strings.TrimPrefix(rest, "\n"), true
}

var (
	paneIDRE    = regexp.MustCompile(`^%[0-9]+$`)
	sessionIDRE = regexp.MustCompile(`^\$[0-9]+$`)
)

func isFlag(s string) bool { return s == "0" || s == "1" }

// CapturePane returns the visible screen of a pane, wrapped lines joined.
func (s *Server) CapturePane(ctx context.Context, pane string) (string, error) {
	return s.Run(ctx, "capture-pane", "-p", "-J", "-t", pane)
}

// ShowOption returns the value of a server-wide (global session) option.
func (s *Server) ShowOption(ctx context.Context, name string) (string, error) {
	out, err := s.Run(ctx, "show-options", "-gv", name)
	return strings.TrimSpace(out), err
}

// typeInArgv is the most text Type gives send-keys on its command line;
// longer text goes through a paste buffer. The kernel takes at most 128 KiB
// in one argument (MAX_ARG_STRLEN): `send-keys` of a 200 KiB message failed
// with "argument list too long", and the message was lost.
const typeInArgv = 16 << 10

// bufferSeq numbers the paste buffers Type makes, so two at once never
// share one.
var bufferSeq atomic.Uint64

// Type types text into a pane as literal keys (newlines become spaces: one
// would submit early), then presses Enter as a key of its own (Claude Code's
// input needs it that way). Text over typeInArgv is loaded into a paste
// buffer of its own from tmux's stdin (load-buffer -) and pasted into the
// pane, the buffer deleted (paste-buffer -d): the same bytes as typing it,
// with no limit of the command line's, and not on a command line that ps
// shows.
func (srv *Server) Type(ctx context.Context, pane, text string) error {
	if err := srv.TypeText(ctx, pane, text); err != nil {
		return err
	}
	return srv.Enter(ctx, pane)
}

// TypeText is Type without its Enter: the text alone, for a program that
// must show it before it takes an Enter (Codex and Gemini take one that
// comes with the text as part of a paste).
func (srv *Server) TypeText(ctx context.Context, pane, text string) error {
	text = strings.NewReplacer("\r", " ", "\n", " ").Replace(text)
	if len(text) <= typeInArgv {
		_, err := srv.Run(ctx, "send-keys", "-t", pane, "-l", "--", text)
		return err
	}
	return srv.paste(ctx, pane, text)
}

// Enter presses Enter in pane.
func (srv *Server) Enter(ctx context.Context, pane string) error {
	_, err := srv.Run(ctx, "send-keys", "-t", pane, "Enter")
	return err
}

// paste puts text into pane through a paste buffer of its own.
func (srv *Server) paste(ctx context.Context, pane, text string) error {
	buf := fmt.Sprintf("teamctl-type-%d-%d", os.Getpid(), bufferSeq.Add(1))
	args := []string{"-N", "load-buffer", "-b", buf, "-"}
	if _, err := srv.runInput(ctx, []byte(text), args, []string{"load-buffer"}, nil); err != nil {
		return err
	}
	if _, err := srv.Run(ctx, "paste-buffer", "-d", "-b", buf, "-t", pane); err != nil {
		srv.Run(ctx, "delete-buffer", "-b", buf) // not left behind, holding the text
		return err
	}
	return nil
}

// KillPane removes pane from the server. A pane that is gone already is no
// error, however tmux says it: "can't find pane", "no current target" (the
// server has no session left: its last pane just went, and the server is about
// to exit), or no server at all.
func (s *Server) KillPane(ctx context.Context, pane string) error {
	_, err := s.Run(ctx, "kill-pane", "-t", pane)
	var ce *CommandError
	switch {
	case err == nil, errors.Is(err, ErrNoServer):
		return nil
	case errors.As(err, &ce) && (strings.Contains(ce.Stderr, "can't find pane") || strings.Contains(ce.Stderr, "no current target")):
		return nil
	}
	return err
}
