package tmux

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
)

// A team whose members run on several hosts has a server on each: this
// machine's, and one per host (its Server.Via). A Group is them as one: its
// pane, window and session ids are the local server's as tmux gives them,
// and a remote server's qualified with its host ("%3@gpu1"), so that a pane
// id names one pane of the team wherever it runs, and each command goes to
// the server of the ids in it.

// Qualify is id (%N, @N or $N) of the server on host ("" for this machine).
func Qualify(id, host string) string {
	if host == "" {
		return id
	}
	return id + "@" + host
}

// SplitQualified is the tmux id and host of a qualified id ("%3@gpu1" is
// "%3", "gpu1"); an id of this machine's server has host "". ok is false for
// anything else.
func SplitQualified(s string) (id, host string, ok bool) {
	if len(s) < 2 || !strings.ContainsRune("%@$", rune(s[0])) {
		return "", "", false
	}
	i := strings.IndexByte(s[1:], '@')
	if i < 0 {
		return s, "", isDigits(s[1:])
	}
	id, host = s[:i+1], s[i+2:]
	return id, host, isDigits(id[1:]) && host != ""
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// Group is a team's servers: Local, and Hosts by host name.
type Group struct {
	*Server                    // this machine's: what names no remote id goes here
	Hosts   map[string]*Server // by host name
}

// HostNames are the group's hosts, sorted.
func (g *Group) HostNames() []string { return slices.Sorted(maps.Keys(g.Hosts)) }

// On is the server of host ("": this machine's), or nil.
func (g *Group) On(host string) *Server {
	if host == "" {
		return g.Server
	}
	return g.Hosts[host]
}

// route is the server the ids in args name, and args with those ids as
// that server knows them. An id of a host the group does not have, or ids
// of two servers, are an error.
func (g *Group) route(args []string) (*Server, string, []string, error) {
	host, out := "", args
	for i, a := range args {
		if a == "--" {
			break // what follows is text (send-keys -l), never an id
		}
		id, h, ok := SplitQualified(a)
		if !ok || h == "" {
			continue
		}
		if host != "" && h != host {
			return nil, "", nil, fmt.Errorf("tmux: one command for two hosts (%s, %s)", host, h)
		}
		if host == "" {
			out = slices.Clone(args)
			host = h
		}
		out[i] = id
	}
	if host == "" {
		return g.Server, "", args, nil
	}
	s := g.Hosts[host]
	if s == nil {
		return nil, "", nil, fmt.Errorf("tmux: no host %q in the team", host)
	}
	return s, host, out, nil
}

// onPane is the server of pane, and pane as it knows it.
func (g *Group) onPane(pane string) (*Server, string, string, error) {
	s, host, args, err := g.route([]string{pane})
	if err != nil {
		return nil, "", "", err
	}
	return s, host, args[0], nil
}

// Run runs one command on the server its ids name.
func (g *Group) Run(ctx context.Context, args ...string) (string, error) {
	s, _, args, err := g.route(args)
	if err != nil {
		return "", err
	}
	return s.Run(ctx, args...)
}

// RunBatch runs b on the server its ids name (one for all its commands).
func (g *Group) RunBatch(ctx context.Context, b *Batch) ([]string, error) {
	s, out, err := g.routeBatch(b)
	if err != nil {
		return nil, err
	}
	return s.RunBatch(ctx, out)
}

// routeBatch is the server of b's commands, and b as it knows them: each
// command routed as Run routes it, all to one server (a command naming no
// remote id goes with the others).
func (g *Group) routeBatch(b *Batch) (*Server, *Batch, error) {
	out := &Batch{}
	var srv *Server
	host, local := "", false
	for _, c := range b.cmds {
		s, h, c2, err := g.route(c)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case h == "":
			local = local || namesLocal(c)
		case srv == nil:
			srv, host = s, h
		case h != host:
			return nil, nil, fmt.Errorf("tmux: one batch for two hosts (%s, %s)", host, h)
		}
		out.Add(c2...)
	}
	switch {
	case srv == nil:
		return g.Server, b, nil
	case local:
		return nil, nil, fmt.Errorf("tmux: one batch for this machine and host %s", host)
	}
	return srv, out, nil
}

// namesLocal reports whether args name an id of this machine's server.
func namesLocal(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if _, h, ok := SplitQualified(a); ok && h == "" {
			return true
		}
	}
	return false
}

// ListPanesHosts lists the panes of every server, remote ones' ids qualified.
// A host that was not reached (or has no server) leaves its panes out; its
// error is in errs by host name. err is this machine's server's.
func (g *Group) ListPanesHosts(ctx context.Context) (panes []Pane, errs map[string]error, err error) {
	panes, err = g.Server.ListPanes(ctx)
	for _, h := range g.HostNames() {
		ps, herr := g.Hosts[h].ListPanes(ctx)
		if herr != nil {
			if errs == nil {
				errs = map[string]error{}
			}
			errs[h] = herr
			continue
		}
		panes = append(panes, QualifyPanes(ps, h)...)
	}
	return panes, errs, err
}

// QualifyPanes are panes of host's server with their ids qualified.
func QualifyPanes(panes []Pane, host string) []Pane {
	for i := range panes {
		p := &panes[i]
		p.ID, p.Window, p.SessionID = Qualify(p.ID, host), Qualify(p.Window, host), Qualify(p.SessionID, host)
	}
	return panes
}

// ListPanes is ListPanesHosts with this machine's server's error only: a
// remote server that does not answer has no panes.
func (g *Group) ListPanes(ctx context.Context) ([]Pane, error) {
	panes, _, err := g.ListPanesHosts(ctx)
	if len(panes) > 0 && errors.Is(err, ErrNoServer) {
		return panes, nil // the members here are gone, those on other hosts run on
	}
	return panes, err
}

// Type, TypeText, Enter, CapturePane, CaptureHistory and KillPane are the
// Server's, on the pane's server.
func (g *Group) Type(ctx context.Context, pane, text string) error {
	s, _, id, err := g.onPane(pane)
	if err != nil {
		return err
	}
	return s.Type(ctx, id, text)
}

func (g *Group) TypeText(ctx context.Context, pane, text string) error {
	s, _, id, err := g.onPane(pane)
	if err != nil {
		return err
	}
	return s.TypeText(ctx, id, text)
}

func (g *Group) Enter(ctx context.Context, pane string) error {
	s, _, id, err := g.onPane(pane)
	if err != nil {
		return err
	}
	return s.Enter(ctx, id)
}

func (g *Group) CapturePane(ctx context.Context, pane string) (string, error) {
	s, _, id, err := g.onPane(pane)
	if err != nil {
		return "", err
	}
	return s.CapturePane(ctx, id)
}

func (g *Group) CaptureHistory(ctx context.Context, pane string, n int) ([]string, error) {
	s, _, id, err := g.onPane(pane)
	if err != nil {
		return nil, err
	}
	return s.CaptureHistory(ctx, id, n)
}

func (g *Group) KillPane(ctx context.Context, pane string) error {
	s, _, id, err := g.onPane(pane)
	if err != nil {
		return err
	}
	return s.KillPane(ctx, id)
}

// ReplacePane is the Server's on old's server; the new pane's ids are
// qualified as old's.
func (g *Group) ReplacePane(ctx context.Context, old, dir string, env, argv []string, member string) (NewPane, error) {
	s, host, id, err := g.onPane(old)
	if err != nil {
		return NewPane{}, err
	}
	p, err := s.ReplacePane(ctx, id, dir, env, argv, member)
	p.ID, p.Window = Qualify(p.ID, host), Qualify(p.Window, host)
	return p, err
}

// FollowPane is the Server's on pane's server, target its session there.
func (g *Group) FollowPane(ctx context.Context, target, pane string, n int, print func([]string)) error {
	s, host, id, err := g.onPane(pane)
	if err != nil {
		return err
	}
	if t, _, ok := SplitQualified(target); ok && host != "" {
		target = t
	}
	return s.FollowPane(ctx, target, id, n, print)
}

// AttachCmd attaches to target's server: a remote session's over ssh.
func (g *Group) AttachCmd(ctx context.Context, target, message string) *exec.Cmd {
	if id, host, ok := SplitQualified(target); ok && host != "" && g.Hosts[host] != nil {
		return g.Hosts[host].AttachCmd(ctx, id, message)
	}
	return g.Server.AttachCmd(ctx, target, message)
}
