package team

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/teamctl/teamctl/tmux"
)

// A Follow watches a team's panes live through one control client of its
// tmux server (control mode): their exits, panes coming and going, and the
// output of the one pane a viewer looks at — every other pane's output is
// paused for this client (tmux's own flow control: the pane is still read,
// its program never blocks, its output is dropped for this client alone),
// so a viewer of a busy team wakes for the pane on screen only. It is how
// top follows the team it shows.
type Follow struct {
	ctl   *tmux.Control
	notes chan PaneNote

	mu     sync.Mutex // one pause/continue sequence at a time
	paused map[string]bool
}

// FollowOptions are how a Follow reads.
type FollowOptions struct {
	// Gather is how long the client lets the shown pane's output pile up
	// between reads (tmux.ControlOptions.Coalesce): a pane printing steadily
	// then wakes the viewer about as often as it redraws, not once a line.
	Gather time.Duration
}

// Follow attaches a control client to the team's session — found through
// one of panes (the members' panes), whatever the session is called now —
// and subscribes to pane exits. Every pane's output starts paused: Show
// names the one to let through.
func (t *Team) Follow(ctx context.Context, panes []string, o FollowOptions) (*Follow, error) {
	all, err := t.srv().ListPanes(ctx)
	if err != nil {
		return nil, err
	}
	target := tmux.SessionTarget(t.Name)
	for _, p := range all {
		if slices.Contains(panes, p.ID) && p.SessionID != "" {
			target = p.SessionID
			break
		}
	}
	ctl, err := serverOf(t.Name, t.tmuxBin).ControlWith(ctx, target, tmux.ControlOptions{Coalesce: o.Gather})
	if err != nil {
		return nil, err
	}
	if _, err := ctl.Command(ctx, "refresh-client", "-B", "dead:%*:#{pane_dead}/#{pane_dead_status}/#{pane_pid}"); err != nil {
		ctl.Close()
		return nil, fmt.Errorf("subscribe to pane exits: %w", err)
	}
	f := &Follow{ctl: ctl, notes: make(chan PaneNote, 64), paused: map[string]bool{}}
	go f.translate()
	return f, nil
}

// translate turns the client's notifications into PaneNotes, until it ends.
func (f *Follow) translate() {
	defer close(f.notes)
	for n := range f.ctl.Notes() {
		switch n.Kind {
		case "output":
			f.notes <- PaneNote{Kind: PaneOutput, Pane: n.Pane}
		case "subscription-changed":
			if n.Name == "dead" {
				f.notes <- PaneNote{Kind: PaneExit}
			}
		case "layout-change", "window-add", "window-close", "unlinked-window-close", "sessions-changed", "window-pane-changed":
			f.notes <- PaneNote{Kind: PanesChanged}
		}
	}
}

// Notes delivers what happens to the panes, in order; closed when the client
// ends.
func (f *Follow) Notes() <-chan PaneNote { return f.notes }

// Done is closed when the client has ended (the server went, say).
func (f *Follow) Done() <-chan struct{} { return f.ctl.Done() }

// Close ends the client and waits (briefly) for it.
func (f *Follow) Close() { f.ctl.Close() }

// Show lets pane's output through to this client and pauses every other
// pane's ("" pauses them all), panes that appeared since included.
func (f *Follow) Show(ctx context.Context, pane string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	panes, err := f.ctl.Command(ctx, "list-panes", "-a", "-F", "#{pane_id}")
	if err != nil {
		return err
	}
	for _, p := range panes {
		pause := p != pane
		if f.paused[p] == pause {
			continue
		}
		how := "continue"
		if pause {
			how = "pause"
		}
		if _, err := f.ctl.Command(ctx, "refresh-client", "-A", p+":"+how); err != nil {
			return err
		}
		f.paused[p] = pause
	}
	return nil
}

// Capture is pane's visible screen, line by line, through the client.
func (f *Follow) Capture(ctx context.Context, pane string) ([]string, error) {
	return f.ctl.Command(ctx, "capture-pane", "-p", "-t", pane)
}
