package supervisor

import (
	"fmt"
	"sort"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/supervisor/internal/filewatch"
)

// Messages to the lead are reported one event each only up to a rate: a
// teammate (any process of the user's) writing 203k tiny messages once made
// 203k events in 6 s, and events.jsonl's rotation threw the team's whole
// history away. In each window of messageWindow, from its first message, a
// sender gets messagesPerSender events and all senders together
// messagesPerWindow; the rest are counted, and reported when the window ends
// as one event a sender with the count (senders past messageSenders in one
// event together). Permission requests and idle notifications are not
// messages: they change a member's state, each once.
const (
	messageWindow     = time.Minute
	messagesPerSender = 10
	messagesPerWindow = 50
	messageSenders    = 20
)

// messagesDue marks the end of a message window due (filewatch.Watcher.Mark):
// it is reported in the loop's turn that reads the followed files.
const messagesDue filewatch.Kind = "messages"

// messageQuota counts the window's messages. The daemon's loop alone uses it
// (filesSeen.msgs).
type messageQuota struct {
	start  time.Time      // the window's first message; zero when no window is open
	shown  map[string]int // sender → messages reported one by one
	total  int            // all senders' messages reported one by one
	held   map[string]int // sender → messages counted, not reported one by one
	others int            // messages held of senders past messageSenders
	timer  bool           // a timer is set for the window's end
}

// message reports a message to the lead from a sender (from: a valid member
// name, "" for one named otherwise) as an event, or counts it when the
// window's quota is spent.
func (s *daemon) message(from, detail string) {
	q := &s.seen.msgs
	now := s.clock.Now()
	if !q.start.IsZero() && now.Sub(q.start) >= messageWindow {
		s.flushMessages()
	}
	if q.start.IsZero() {
		*q = messageQuota{start: now, shown: map[string]int{}, held: map[string]int{}}
	}
	if q.shown[from] < messagesPerSender && q.total < messagesPerWindow {
		q.shown[from]++
		q.total++
		s.event(state.Event{Kind: state.EventMessage, Member: from, Detail: detail})
		return
	}
	if _, ok := q.held[from]; ok || len(q.held) < messageSenders {
		q.held[from]++
	} else {
		q.others++
	}
	if !q.timer {
		q.timer = true
		// The window's end is the daemon loop's to report: the timer only
		// marks it due.
		s.clock.AfterFunc(q.start.Add(messageWindow).Sub(now), func() { s.files.Mark(messagesDue) })
	}
}

// flushMessages ends the message window when it is over, reporting what it
// counted: one event a sender, with how many.
func (s *daemon) flushMessages() {
	q := &s.seen.msgs
	if q.start.IsZero() || s.clock.Now().Sub(q.start) < messageWindow {
		return
	}
	senders := make([]string, 0, len(q.held))
	for name := range q.held {
		senders = append(senders, name)
	}
	sort.Strings(senders)
	for _, name := range senders {
		from := name
		if from == "" {
			from = "senders whose names teamctl does not take"
		}
		s.event(state.Event{Kind: state.EventMessage, Member: name, Detail: fmt.Sprintf(
			"%d more messages from %s in a minute, counted, not reported one by one (over %d a minute a sender, %d in all)",
			q.held[name], from, messagesPerSender, messagesPerWindow)})
	}
	if q.others > 0 {
		s.event(state.Event{Kind: state.EventMessage, Detail: fmt.Sprintf(
			"%d more messages from other senders in a minute, counted, not reported one by one (over %d senders)", q.others, messageSenders)})
	}
	s.seen.msgs = messageQuota{}
}
