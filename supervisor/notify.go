package supervisor

import (
	"context"
	"fmt"

	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/notify"
	"github.com/teamctl/teamctl/stallwatch"
	"github.com/teamctl/teamctl/state"
)

// notifier tells someone about stalls, per the layout's watchdog.notify, and
// answers them where watchdog.answer says so.
type notifier struct {
	s       *daemon
	toLead  []leadNote // text waiting for the lead to be idle
	leadIdx string     // the lead's pane
}

func newNotifier(s *daemon) *notifier {
	n := &notifier{s: s}
	for _, m := range s.st.Members {
		if m.Role == state.RoleLead {
			n.leadIdx = m.Pane
		}
	}
	return n
}

// stalled runs once per new stall.
func (n *notifier) stalled(ctx context.Context, w *paneWatch, v stallwatch.Verdict) {
	l := n.s.lay
	if l == nil {
		return
	}
	for _, a := range l.Watchdog.Answer {
		if a.Pattern == v.Pattern {
			n.answer(ctx, w, a.Keys, "automatic (watchdog.answer)")
			break
		}
	}
	if cmd := l.Watchdog.Notify.Command; len(cmd) > 0 {
		go func() {
			if err := notify.Run(ctx, cmd, n.s.team, w.member, v); err != nil {
				n.s.log.Warn("notify command", "argv", cmd, "err", err)
			}
		}()
	}
	if l.Watchdog.Notify.Lead && w.id != n.leadIdx && n.leadIdx != "" {
		n.queue(ctx, taskNotification(w.member, v), "told the lead: ")
	}
}

// idle is called when a pane is seen idle; the lead then gets the next
// notification typed into its input.
func (n *notifier) idle(ctx context.Context, w *paneWatch) {
	if w.id != n.leadIdx || len(n.toLead) == 0 {
		return
	}
	note := n.toLead[0]
	n.toLead = n.toLead[1:]
	if err := n.s.srv.Type(ctx, w.id, note.text); err != nil {
		n.s.log.Warn("type into the lead", "err", err)
		return
	}
	n.s.event(state.Event{Kind: state.EventNotify, Member: w.member, Pane: w.id, Detail: note.what + textsafe.Short(note.text, 300)})
}

// leadNote is text for the lead and what to call it in the event.
type leadNote struct{ text, what string }

// queue keeps text for the lead, typed at once when it is idle now.
func (n *notifier) queue(ctx context.Context, text, what string) {
	n.toLead = append(n.toLead, leadNote{text, what})
	if lw := n.s.panes[n.leadIdx]; lw != nil && lw.live.State == state.StateIdle {
		n.idle(ctx, lw)
	}
}

func (n *notifier) answer(ctx context.Context, w *paneWatch, keys []string, how string) {
	args := append([]string{"send-keys", "-t", w.id, "--"}, keys...)
	if _, err := n.s.srv.Run(ctx, args...); err != nil {
		n.s.log.Warn("answer", "member", w.member, "err", err)
		return
	}
	n.s.event(state.Event{Kind: state.EventAnswer, Member: w.member, Pane: w.id, Keys: keys, Detail: how})
}

// taskNotification is what the lead is told, in Claude Code's own
// <task-notification> form, on one line (a newline would submit it early).
func taskNotification(member string, v stallwatch.Verdict) string {
	return fmt.Sprintf("<task-notification><member>%s</member><status>stalled</status><summary>%s is waiting for a human (%s)</summary><line>%s</line></task-notification>",
		member, member, v.Pattern, v.Line)
}
