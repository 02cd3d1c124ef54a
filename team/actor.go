package team

import (
	"fmt"

	"github.com/teamctl/teamctl/state"
)

// ActingAs makes the team's verbs (Answer, Approve, Deny, Send, Restart)
// record that they came by b.
func (t *Team) ActingAs(b By) { t.by = actor{b} }

// actor is a By as the verbs' events and messages say it.
type actor struct{ By }

// detail is the event's detail of a verb run by command cmd ("teamctl
// answer"): by whom, and by which way in.
func (b actor) detail(cmd string) string {
	if b.Via == "" {
		return "by a person (" + cmd + ")"
	}
	return fmt.Sprintf("by a person (%s, from %s)", b.command(), b.From)
}

func (b actor) command() string {
	if b.Via == "web" {
		return "teamctl serve"
	}
	return b.Via
}

// mark gives e the way in and the address it came from.
func (b actor) mark(e state.Event) state.Event {
	e.Via, e.From = b.Via, b.From
	return e
}

// sent is the start of a message event's detail.
func (b actor) sent() string {
	if b.Via == "" {
		return "from teamctl send: "
	}
	return fmt.Sprintf("from %s (%s): ", b.command(), b.From)
}

// restarted is a restart event's detail.
func (b actor) restarted(pid int) string {
	if b.Via == "" {
		return fmt.Sprintf("(by a person) pid %d", pid)
	}
	return fmt.Sprintf("(by a person, %s from %s) pid %d", b.command(), b.From, pid)
}

// commandOr is the command the way in names, cmd for the command line.
func (b actor) commandOr(cmd string) string {
	if b.Via == "" {
		return cmd
	}
	return b.command()
}

// suffix, for another way in than the command line, says which and from where.
func (b actor) suffix() string {
	if b.Via == "" {
		return ""
	}
	return fmt.Sprintf(" (%s, from %s)", b.command(), b.From)
}
