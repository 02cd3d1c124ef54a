package supervisor

import (
	"context"
	"fmt"
	"strings"

	"github.com/teamctl/teamctl/internal/textsafe"
	"github.com/teamctl/teamctl/notify"
	"github.com/teamctl/teamctl/stallwatch"
	"github.com/teamctl/teamctl/state"
)

// notifier tells someone about stalls, per the layout's watchdog.notify, and
// answers them where watchdog.answer says so.
type notifier struct {
	s      *daemon
	toLead []leadNote // text waiting for the lead to be idle
}

func newNotifier(s *daemon) *notifier { return &notifier{s: s} }

// leadPane is the lead's pane now (a relaunch gives it a new one).
func (n *notifier) leadPane() string {
	for _, m := range n.s.st.Members {
		if m.Role == state.RoleLead {
			return m.Pane
		}
	}
	return ""
}

// stalled runs once per new stall, with the screen that showed it.
func (n *notifier) stalled(ctx context.Context, w *paneWatch, v stallwatch.Verdict, screen string) {
	l := n.s.lay
	if l == nil {
		return
	}
	for _, a := range l.Watchdog.Answer {
		if a.Pattern != v.Pattern {
			continue
		}
		if a.Option != "" {
			n.choose(ctx, w, a.Option, screen)
		} else {
			n.answer(ctx, w, a.Keys, "", "automatic (watchdog.answer)")
		}
		break
	}
	if cmd := l.Watchdog.Notify.Command; len(cmd) > 0 {
		go func() {
			if err := notify.Run(ctx, cmd, n.s.team, w.member, v); err != nil {
				n.s.log.Warn("notify command", "argv", cmd, "err", err)
			}
		}()
	}
	if lead := n.leadPane(); l.Watchdog.Notify.Lead && w.id != lead && lead != "" {
		n.queue(ctx, taskNotification(w.member, v), "told the lead: ")
	}
}

// idle is called when a pane is seen idle; the lead then gets the next
// notification typed into its input.
func (n *notifier) idle(ctx context.Context, w *paneWatch) {
	if w.id != n.leadPane() || len(n.toLead) == 0 || n.s.heldMember(w.member) {
		return // a held lead's notes wait for its release (budget.go)
	}
	note := n.toLead[0]
	n.toLead = n.toLead[1:]
	if err := n.s.srv.Type(ctx, w.id, typable(note.text)); err != nil {
		// Never dropped unsaid: `send` said "queued".
		n.s.log.Warn("type into the lead", "err", err)
		n.s.event(state.Event{Kind: state.EventNotify, Member: w.member, Pane: w.id,
			Detail: fmt.Sprintf("not typed into the lead (%v): %s", err, textsafe.Short(note.text, 200))})
		return
	}
	// What was typed starts a turn: the lead works now, and the next text
	// waits for that turn's end. (Left idle, a second text queued a moment
	// later was typed at once, into a turn that had begun, and Claude Code
	// 2.1.328 lost it.) Looked at again after a quiet period: text the lead
	// did not take leaves it idle, and the next is typed then.
	w.live = &state.LiveMember{Pane: w.id, State: state.StateRunning, Since: n.s.clock.Now().UTC()}
	w.rechecked, w.typedTurn, w.typedText = false, true, typable(note.text)
	n.s.live.Members[w.member] = w.live
	if !w.armed {
		n.s.arm(w, n.s.quiet)
	}
	if note.end > 0 {
		n.s.live.LeadQueueOffset = note.end // typed: a later supervisor must not type it again
	}
	n.s.saveLive()
	n.s.event(state.Event{Kind: state.EventNotify, Member: w.member, Pane: w.id, Detail: note.what + textsafe.Short(note.text, 300)})
}

// typable is text as it is typed into the lead's input: on one line (a
// newline would submit it early, a tab is a key there), and with anything a
// terminal would act on written as a visible escape, whoever wrote it (a
// pane's line in a stall notice; the lead queue, which `send` checks but
// agents can write too). It never holds a key other than text.
func typable(text string) string {
	return textsafe.Visible(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(text))
}

// queueWaiting reports whether texts from the lead queue wait to be typed.
func (n *notifier) queueWaiting() bool {
	for _, note := range n.toLead {
		if note.end > 0 {
			return true
		}
	}
	return false
}

// leadNote is text for the lead and what to call it in the event.
type leadNote struct {
	text, what string
	end        int64 // for text from the lead queue: the queue's offset after it
}

// queue keeps text for the lead, typed at once when it is idle now.
func (n *notifier) queue(ctx context.Context, text, what string) { n.queueAt(ctx, text, what, 0) }

// queueAt is queue for text from the lead queue, which ends at offset end.
func (n *notifier) queueAt(ctx context.Context, text, what string, end int64) {
	n.toLead = append(n.toLead, leadNote{text, what, end})
	if lw := n.s.panes[n.leadPane()]; lw != nil && lw.live.State == state.StateIdle {
		n.idle(ctx, lw)
	}
}

// choose answers a Claude Code dialog with the option a watchdog.answer
// names, read on the screen that showed the stall, as `teamctl answer
// --option` does. A dialog without that option (or with several starting
// so) is left to a person: nothing is sent on a guess.
func (n *notifier) choose(ctx context.Context, w *paneWatch, option, screen string) {
	d, ok := stallwatch.ReadDialog(screen)
	if !ok {
		n.s.log.Warn("watchdog.answer: no options to choose from on the screen", "member", w.member, "option", option)
		return
	}
	o, candidates := d.Find(option)
	if len(candidates) != 1 {
		n.s.log.Warn("watchdog.answer: the dialog has no single such option", "member", w.member, "option", option, "options", d.Describe(0))
		return
	}
	n.answer(ctx, w, d.Keys(o), o.String(), "automatic (watchdog.answer)")
}

func (n *notifier) answer(ctx context.Context, w *paneWatch, keys []string, option, how string) {
	if n.s.heldMember(w.member) {
		return // held for its budget: nothing is typed into it
	}
	args := append([]string{"send-keys", "-t", w.id, "--"}, keys...)
	if _, err := n.s.srv.Run(ctx, args...); err != nil {
		n.s.log.Warn("answer", "member", w.member, "err", err)
		return
	}
	n.s.event(state.Event{Kind: state.EventAnswer, Member: w.member, Pane: w.id, Keys: keys, Option: option, Detail: how})
}

// taskNotification is what the lead is told, in Claude Code's own
// <task-notification> form, on one line (a newline would submit it early).
func taskNotification(member string, v stallwatch.Verdict) string {
	return fmt.Sprintf("<task-notification><member>%s</member><status>stalled</status><summary>%s is waiting for a human (%s)</summary><line>%s</line></task-notification>",
		member, member, v.Pattern, v.Line)
}
