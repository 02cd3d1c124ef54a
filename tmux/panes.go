package tmux

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// sep separates fields in -F output; it never occurs in names teamctl validated
// and terminals do not put it in titles.
const sep = "\x1f"

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

var paneFormat = strings.Join([]string{
	"#{pane_id}", "#{pane_pid}", "#{pane_dead}", "#{pane_dead_status}", "#{pane_dead_signal}",
	"#{window_id}", "#{session_name}", "#{session_id}", "#{@teamctl-member}",
	"#{pane_width}", "#{pane_height}", "#{pane_left}", "#{pane_top}", "#{pane_active}",
	"#{pane_title}", // last: free text
}, sep)

// ListPanes lists every pane on the server.
func (s *Server) ListPanes(ctx context.Context) ([]Pane, error) {
	out, err := s.Run(ctx, "list-panes", "-a", "-F", paneFormat)
	if err != nil {
		return nil, err
	}
	var panes []Pane
	for _, ln := range lines(out) {
		p, err := parsePane(ln)
		if err != nil {
			return nil, err
		}
		panes = append(panes, p)
	}
	return panes, nil
}

func parsePane(ln string) (Pane, error) {
	f := strings.SplitN(ln, sep, 15)
	if len(f) != 15 {
		return Pane{}, fmt.Errorf("list-panes: unexpected line %q", ln)
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	p := Pane{
		ID: f[0], PID: atoi(f[1]), Dead: f[2] == "1", DeadSignal: atoi(f[4]),
		Window: f[5], Session: f[6], SessionID: f[7], Member: f[8],
		Width: atoi(f[9]), Height: atoi(f[10]), Left: atoi(f[11]), Top: atoi(f[12]),
		Active: f[13] == "1", Title: f[14],
	}
	if p.Dead && f[3] != "" {
		st := atoi(f[3])
		p.DeadStatus = &st
	}
	return p, nil
}

// CapturePane returns the visible screen of a pane, wrapped lines joined.
func (s *Server) CapturePane(ctx context.Context, pane string) (string, error) {
	return s.Run(ctx, "capture-pane", "-p", "-J", "-t", pane)
}

// ShowOption returns the value of a server-wide (global session) option.
func (s *Server) ShowOption(ctx context.Context, name string) (string, error) {
	out, err := s.Run(ctx, "show-options", "-gv", name)
	return strings.TrimSpace(out), err
}
