package team

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// Attachment is a prepared `teamctl attach`: the member's pane is selected, and
// Cmd attaches a terminal to the team's session.
type Attachment struct {
	Prefix string // the team server's prefix key, for the detach hint
	srv    tmuxServer
	target string // the member's session, exactly
}

// Cmd returns the attach command; it runs until the person detaches. A message
// other than "" shows on the status line once attached.
func (a *Attachment) Cmd(ctx context.Context, message string) *exec.Cmd {
	return a.srv.AttachCmd(ctx, a.target, message)
}

// prepareAttach selects member's pane (and its window) so that attaching lands on it.
func (t *Team) prepareAttach(ctx context.Context, member string) (*Attachment, error) {
	team := t.Name
	st, err := state.Load(team)
	if err != nil {
		return nil, err
	}
	if !st.Running() {
		return nil, fmt.Errorf("team %s is down: `teamctl up %s` first", team, st.LayoutPath)
	}
	m, ok := st.Member(member)
	if !ok {
		var names []string
		for _, m := range st.Members {
			names = append(names, m.Name)
		}
		return nil, fmt.Errorf("team %s has no member %q (members: %s)", team, member, strings.Join(names, ", "))
	}
	srv := t.srv()
	var b tmux.Batch
	b.Add("select-window", "-t", m.Pane)
	b.Add("select-pane", "-t", m.Pane)
	if _, err := srv.RunBatch(ctx, &b); err != nil {
		if isNoServer(err) {
			return nil, fmt.Errorf("team %s's tmux server is gone: `teamctl up %s` brings it back", team, st.LayoutPath)
		}
		return nil, fmt.Errorf("select %s's pane: %w", member, err)
	}
	panes, err := srv.ListPanes(ctx)
	if err != nil {
		return nil, err
	}
	target := sessionTarget(st, panes)
	for _, p := range panes {
		if p.ID == m.Pane && p.SessionID != "" {
			target = p.SessionID // the member's own session, whatever it is called now
		}
	}
	prefix, err := srv.ShowOption(ctx, "prefix")
	if err != nil || prefix == "" {
		prefix = "C-b"
	}
	return &Attachment{Prefix: prefix, srv: srv, target: target}, nil
}
