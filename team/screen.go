package team

import (
	"context"
	"fmt"
	"strings"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/tmux"
)

// Screen is what member's pane shows now, as text (no escape sequences): a
// running member's visible screen; of a member whose pane's program ended,
// the last lines it printed — its last words as the supervisor kept them of
// that run, else its dead pane's screen — never a blank. It is what top's and
// the page's detail show, through the team's own seam (team/deps.go).
func (t *Team) Screen(ctx context.Context, member string) (string, error) {
	return t.screen(ctx, member, false)
}

// ScreenInColour is Screen with a running member's colours and attributes
// kept, as tmux's SGR sequences (capture-pane -e), for a view that draws
// them through an escaper of its own (the page's). Never for reading the
// screen: dialogs and stalls are read from Screen's plain text.
func (t *Team) ScreenInColour(ctx context.Context, member string) (string, error) {
	return t.screen(ctx, member, true)
}

func (t *Team) screen(ctx context.Context, member string, colour bool) (string, error) {
	st, err := state.Load(t.Name)
	if err != nil {
		return "", err
	}
	m, ok := st.Member(member)
	if !ok {
		return "", noMember(st, member)
	}
	srv := t.srv()
	pane, err := paneOf(ctx, srv, st, m)
	if err != nil {
		return "", err
	}
	if pane != nil && !pane.Dead {
		if colour {
			return srv.Run(ctx, "capture-pane", "-p", "-e", "-J", "-t", pane.ID)
		}
		return srv.CapturePane(ctx, pane.ID)
	}
	if lw, _ := state.ReadLastWords(t.Name, member); lw != nil && (pane == nil || lw.Of(pane.ID, pane.PID)) {
		return strings.Join(lw.Lines, "\n"), nil
	}
	if pane != nil {
		lines, err := srv.CaptureHistory(ctx, pane.ID, LastLinesShown)
		if err != nil {
			return "", fmt.Errorf("%s's last screen: %w", member, err)
		}
		return strings.Join(tmux.WithoutDeadNotice(lines), "\n"), nil
	}
	return "", nil
}
